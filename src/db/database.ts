import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import {
  DEFAULT_MIGRATION_TABLE,
  Kysely,
  Migrator,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  sql,
} from 'kysely';
import type { Database, DatabaseTimeouts } from '../config.js';
import * as initial from './migrations/0001-initial.js';
import * as teamwork from './migrations/0002-teamwork-and-billing.js';
import * as oauth from './migrations/0003-oauth.js';
import * as partners from './migrations/0004-partners.js';
import * as webhooks from './migrations/0005-webhooks.js';
import * as monitoring from './migrations/0006-monitoring.js';
import * as reclaimTrial from './migrations/0007-reclaim-trial.js';
import * as brandKit from './migrations/0008-brand-kit.js';
import * as articleLanguage from './migrations/0009-article-language.js';
import * as judgement from './migrations/0010-judgement.js';
import * as matchPolicy from './migrations/0011-match-policy.js';
import * as meteringReservations from './migrations/0012-metering-reservations.js';
import * as connectedApps from './migrations/0013-connected-apps.js';
import * as retention from './migrations/0014-retention.js';
import * as profile from './migrations/0015-profile.js';
import * as storyRequests from './migrations/0016-story-requests.js';
import * as phaseDue from './migrations/0017-phase-due.js';
import * as storySearch from './migrations/0018-story-search.js';
import * as coverage from './migrations/0019-coverage.js';
import * as alerts from './migrations/0020-alerts.js';
import * as emailSenderName from './migrations/0021-email-sender-name.js';
import * as undatedSources from './migrations/0022-undated-sources.js';
import * as opinionSources from './migrations/0023-opinion-sources.js';
import * as connectors from './migrations/0024-connectors.js';
import * as connectorTargets from './migrations/0025-connector-targets.js';
import * as blueskyStream from './migrations/0026-bluesky-stream.js';
import * as quietMentions from './migrations/0027-quiet-mentions.js';
import * as spikeAlerts from './migrations/0028-spike-alerts.js';
import * as articleAuthors from './migrations/0029-article-authors.js';
import * as streamReactions from './migrations/0030-stream-reactions.js';
import { openPostgresPool } from './postgres-pool.js';
import type { DB } from './schema.js';
import { sqliteFileGuard } from './sqlite-file-guard.js';

export type Db = Kysely<DB>;

/** Whether `db` (a pool or a transaction) speaks to PostgreSQL rather than SQLite. */
export const onPostgres = (db: Db) => db.getExecutor().adapter instanceof PostgresAdapter;

export function openDatabase(database: Database, timeouts: DatabaseTimeouts): Db {
  if (database.dialect === 'postgres') {
    const pool = openPostgresPool(database.url, timeouts);
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    postgresPools.set(db, pool);
    return db;
  }
  if (database.file !== ':memory:') mkdirSync(dirname(database.file), { recursive: true });
  const sqlite = new SQLite(database.file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`busy_timeout = ${timeouts.busyMs}`);
  // Reads of a working set larger than SQLite's default 16 MB page cache go to the kernel
  // on every miss; a larger cache and memory-mapped reads keep hot pages in the process.
  sqlite.pragma('cache_size = -65536');
  sqlite.pragma('mmap_size = 268435456');
  const guard = sqliteFileGuard(database.file);
  const cached = withStatementCache(sqlite, guard);
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: cached }) });
  sqliteHandles.set(db, cached);
  return db;
}

export type SqliteHandle = ReturnType<typeof withStatementCache>;
const sqliteHandles = new WeakMap<Db, SqliteHandle>();

/** The SQLite connection behind `db` (for synchronous hot-path reads), or undefined on PostgreSQL. */
export const sqliteHandle = (db: Db) => sqliteHandles.get(db);

const postgresPools = new WeakMap<Db, ReturnType<typeof openPostgresPool>>();

/**
 * The PostgreSQL pool behind `db` (for named prepared statements on the hot path), or
 * undefined on SQLite and inside a transaction (whose connection Kysely holds).
 */
export const postgresPool = (db: Db) => postgresPools.get(db);

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver prepares every statement anew; preparing cost up to a quarter of
 * a request's CPU in the benchmark. The SQL text of a query is stable (values are bound
 * parameters), so statements are kept by text, in a bounded map.
 */
function withStatementCache(sqlite: SQLite.Database, guard: { check(): void }) {
  const cache = new Map<string, SQLite.Statement>();
  const shared = sharedReads(sqlite);
  return {
    /** Throws while the database file is not at its path (see sqlite-file-guard.ts). */
    checkFile: () => guard.check(),
    close: () => {
      shared.end();
      sqlite.close();
    },
    /** A statement of its own that returns rows as arrays (see prepared.ts). */
    prepareRaw: (sql: string) => sqlite.prepare(sql).raw(true),
    /** Runs a hot read now (sharedReads), or answers undefined inside Kysely's transaction. */
    read: shared.read,
    prepare(sql: string) {
      // Anything Kysely runs (a write, a transaction's begin) must not join the shared read.
      shared.end();
      let statement = cache.get(sql);
      if (!statement) {
        // Kysely opens transactions with a plain `begin`, which takes the write lock only
        // at the first write: if another process wrote since the transaction's first read,
        // SQLite refuses that write at once ("database is locked"), without waiting.
        // `begin immediate` takes the lock up front, waiting its busy timeout for it.
        statement = sqlite.prepare(sql === 'begin' ? 'begin immediate' : sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(sql, statement);
      }
      // Kysely prepares every statement it runs: a write is refused here while the file
      // was moved, so no write is acknowledged into a file a restart would not open.
      if (!statement.readonly) guard.check();
      return statement;
    },
  };
}

/**
 * The hot reads (prepared.ts) made in one pass of the microtask queue share one read
 * transaction. Outside a transaction every statement takes and releases the database's
 * shared lock and a WAL read lock, four `fcntl` calls: 2.3 µs of a 3–4 µs read on a fast
 * machine, 10–12 µs of 13–17 on a slow one (measured, docs/benchmarks.md), while `begin`
 * and `commit` around them cost 1.7. One pass is the work one event (a request's bytes,
 * the rate limiter's answer to a batch of requests) sets off before the event loop moves
 * on: every request it serves was received before its first read, so the snapshot holds
 * every write acknowledged before any of them was sent. The first read runs alone (one
 * read in a pass gains nothing); the second opens the transaction; it ends when the
 * pass does (afterPass), or before anything else runs on the connection.
 */
function sharedReads(sqlite: SQLite.Database) {
  const begin = sqlite.prepare('begin');
  const commit = sqlite.prepare('commit');
  const rollback = sqlite.prepare('rollback');
  let readsInPass = 0;
  let open = false;
  const end = () => {
    if (!open) return;
    open = false;
    // A read-only transaction's commit only releases its locks; should it fail all the
    // same, the transaction must not outlive the pass (it runs in a tick: a throw there
    // would end the process).
    try {
      commit.run();
    } catch {
      if (sqlite.inTransaction) rollback.run();
    }
  };
  const endPass = () => {
    readsInPass = 0;
    end();
  };
  return {
    end,
    read(statement: SQLite.Statement, values: unknown[]): unknown[][] | undefined {
      // A transaction of Kysely's is open (another request's, between two of its
      // statements): the read waits its turn through Kysely, never seeing uncommitted rows.
      if (sqlite.inTransaction && !open) return undefined;
      if (readsInPass === 0) afterPass(endPass);
      else if (!open) {
        begin.run();
        open = true;
      }
      readsInPass++;
      return statement.all(...values) as unknown[][];
    },
  };
}

/**
 * Runs `fn` once the pass of the microtask queue under way is over: a microtask queued now
 * queues a tick, and ticks run only once the microtask queue is empty.
 */
export function afterPass(fn: () => void): void {
  queueMicrotask(() => process.nextTick(fn));
}

let gathering: Promise<void> | undefined;

/**
 * Resolves in the check phase of this turn of the event loop (after the poll phase has
 * handled every event it got), for every caller of the turn at once: the reads they make
 * then run in one pass, so in one shared read transaction (sharedReads). A request's
 * first read (its key) is made in the pass of its own bytes, alone; gathered, the turn's
 * requests share one. Every request it gathers was received before the pass began.
 */
export function gatherReads(): Promise<void> {
  gathering ??= new Promise((resolve) =>
    setImmediate(() => {
      gathering = undefined;
      resolve();
    }),
  );
  return gathering;
}

/**
 * Runs `fn` in a transaction, or inside the caller's when `db` already is one, so a
 * domain function can be composed into a larger unit (the idempotent request).
 */
export function withTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}

/** The service's migrations, in order; `migrate` takes them all, a test may stop earlier. */
export function migrator(db: Db): Migrator {
  return new Migrator({
    db,
    provider: {
      getMigrations: async () => ({
        '0001-initial': initial,
        '0002-teamwork-and-billing': teamwork,
        '0003-oauth': oauth,
        '0004-partners': partners,
        '0005-webhooks': webhooks,
        '0006-monitoring': monitoring,
        '0007-reclaim-trial': reclaimTrial,
        '0008-brand-kit': brandKit,
        '0009-article-language': articleLanguage,
        '0010-judgement': judgement,
        '0011-match-policy': matchPolicy,
        '0012-metering-reservations': meteringReservations,
        '0013-connected-apps': connectedApps,
        '0014-retention': retention,
        '0015-profile': profile,
        '0016-story-requests': storyRequests,
        '0017-phase-due': phaseDue,
        '0018-story-search': storySearch,
        '0019-coverage': coverage,
        '0020-alerts': alerts,
        '0021-email-sender-name': emailSenderName,
        '0022-undated-sources': undatedSources,
        '0023-opinion-sources': opinionSources,
        '0024-connectors': connectors,
        '0025-connector-targets': connectorTargets,
        '0026-bluesky-stream': blueskyStream,
        '0027-quiet-mentions': quietMentions,
        '0028-spike-alerts': spikeAlerts,
        '0029-article-authors': articleAuthors,
        '0030-stream-reactions': streamReactions,
      }),
    },
  });
}

/**
 * Brings the schema up to this version. A database that is ahead (a newer release
 * migrated it while this one runs: a rolling upgrade, a rollback) is left as it is and
 * answered with the migrations this version does not know: migrations are additive
 * (docs/deployment.md, "Upgrades"), so this version's queries hold on the newer schema.
 */
export async function migrate(db: Db): Promise<{ ahead: string[] }> {
  const m = migrator(db);
  const known = (await m.getMigrations()).map((x) => x.name);
  const executed = await executedMigrations(db);
  const ahead = executed.filter((name) => !known.includes(name));
  if (ahead.length > 0) {
    const missing = known.filter((name) => !executed.includes(name));
    if (missing.length > 0) {
      throw new Error(
        `the database has migrations this version does not know (${ahead.join(', ')}) and lacks some it needs (${missing.join(', ')})`,
      );
    }
    return { ahead };
  }
  const { error } = await migrateYielding(db);
  if (error) {
    // A newer release may have migrated between the read above and the migrator's lock.
    const now = await executedMigrations(db);
    const newer = now.filter((name) => !known.includes(name));
    if (newer.length > 0 && known.every((name) => now.includes(name))) return { ahead: newer };
    throw error;
  }
  return { ahead: [] };
}

/**
 * How long a migration waits for a table's lock on PostgreSQL before it gives way. Serving
 * instances read the tables it alters; one waiting on its first table while it waits on
 * the next would be a deadlock, which PostgreSQL breaks (after `deadlock_timeout`, 1 s) by
 * failing one side: the reader, a 500. Giving way first, well within that second, the
 * migration is the side that fails, and it simply runs again.
 */
const MIGRATION_LOCK_TIMEOUT = '200ms';
const MIGRATION_TRIES = 50;

/**
 * Runs the pending migrations (one transaction, as Kysely's migrator does); on PostgreSQL
 * with a short lock timeout, from the start again, after a pause, when a lock was not had
 * in time (SQLSTATE 55P03). Its transaction rolled back, so nothing is half done.
 */
async function migrateYielding(db: Db) {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return migrator(db).migrateToLatest();
  for (let attempt = 1; ; attempt++) {
    const result = await db.connection().execute(async (conn) => {
      await sql`set lock_timeout = ${sql.lit(MIGRATION_LOCK_TIMEOUT)}`.execute(conn);
      try {
        return await migrator(conn).migrateToLatest();
      } finally {
        await sql`reset lock_timeout`.execute(conn);
      }
    });
    const code = (result.error as { code?: string } | undefined)?.code;
    if (code !== '55P03' || attempt >= MIGRATION_TRIES) return result;
    await new Promise((r) => setTimeout(r, 50 * Math.min(attempt, 10)));
  }
}

/** The names of the migrations the database has run (none before its first). */
async function executedMigrations(db: Db): Promise<string[]> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((t) => t.name === DEFAULT_MIGRATION_TABLE)) return [];
  const rows = await sql<{
    name: string;
  }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(db);
  return rows.rows.map((r) => r.name);
}

/**
 * Refuses to work on a database whose schema is behind the code. Only `brs migrate`,
 * `brs serve` and `brs start` migrate: an operator's `brs audit` against production must
 * not change its schema as a side effect.
 */
export async function requireMigrated(db: Db): Promise<void> {
  const pending = (await migrator(db).getMigrations()).filter((m) => !m.executedAt);
  if (pending.length > 0) {
    throw new Error(
      `the database schema is behind this version (${pending.length} migration${pending.length === 1 ? '' : 's'} to apply): run \`brs migrate\` first`,
    );
  }
}

/** Whether the database answers and, on SQLite, is still the file at its path. */
export async function ping(db: Db): Promise<void> {
  sqliteHandle(db)?.checkFile();
  await sql`select 1`.execute(db);
}
