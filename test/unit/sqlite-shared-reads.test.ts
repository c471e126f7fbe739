import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  type Db,
  gatherReads,
  openDatabase,
  sqliteHandle,
  withTransaction,
} from '../../src/db/database.js';

/**
 * The hot reads of one pass of the microtask queue share a read transaction
 * (database.ts, sharedReads): one snapshot for the pass, none left open after it, and
 * nothing else run on the connection ever lands inside it.
 */
let dir: string;
let db: Db;
let other: SQLite.Database;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'brs-shared-reads-'));
  const file = join(dir, 'stories.db');
  db = openDatabase(
    { dialect: 'sqlite', file },
    { connectMs: 1000, statementMs: 1000, busyMs: 1000 },
  );
  await sql`create table t (n integer)`.execute(db);
  await sql`insert into t values (1)`.execute(db);
  // Another server process, as a second connection to the file.
  other = new SQLite(file);
  other.pragma('busy_timeout = 0');
});

afterEach(async () => {
  other.close();
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const handle = () => sqliteHandle(db)!;
const count = () => handle().read(handle().prepareRaw('select count(*) from t'), [])?.[0]?.[0];
const otherCount = () => other.prepare('select count(*) from t').pluck().get();
const nextEvent = () => new Promise((resolve) => setImmediate(resolve));

it('reads of one pass see one snapshot, across awaits; the next event sees new writes', async () => {
  expect(count()).toBe(1);
  await null;
  expect(count()).toBe(1); // the second read of the pass begins the shared transaction
  other.prepare('insert into t values (2)').run();
  await Promise.resolve();
  expect(count()).toBe(1); // still the pass's snapshot
  await nextEvent();
  expect(count()).toBe(2);
  // Nothing stays open once the pass is over: a checkpoint can take the whole log.
  await nextEvent();
  const [checkpoint] = other.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
  expect(checkpoint!.busy).toBe(0);
});

it('a write after shared reads is committed when its await returns, not at the end of the pass', async () => {
  count();
  count();
  await sql`insert into t values (3)`.execute(db);
  expect(otherCount()).toBe(2);
  expect(count()).toBe(2);
  expect(count()).toBe(2);
  // The reads after the write share a snapshot again; a reader does not hold up another
  // process's write (WAL), and the next event sees it.
  other.prepare('insert into t values (4)').run();
  await nextEvent();
  expect(count()).toBe(3);
});

it('a transaction begun after shared reads takes the write lock and commits on its own', async () => {
  count();
  count();
  await withTransaction(db, async (trx) => {
    await sql`insert into t values (5)`.execute(trx);
  });
  expect(otherCount()).toBe(2);
});

it('while a transaction of Kysely is open, a hot read is left to Kysely (no uncommitted rows)', async () => {
  let release!: () => void;
  let inside!: () => void;
  const entered = new Promise<void>((resolve) => {
    inside = resolve;
  });
  const done = withTransaction(db, async (trx) => {
    await sql`insert into t values (6)`.execute(trx);
    inside();
    await new Promise<void>((resolve) => {
      release = resolve;
    });
  });
  await entered;
  expect(count()).toBeUndefined();
  release();
  await done;
  expect(count()).toBe(2);
});

it('reads gathered from separate events run in one pass, after every one of those events', async () => {
  const seen: unknown[] = [];
  const event = (work: () => void) =>
    new Promise<void>((resolve) =>
      setTimeout(async () => {
        await gatherReads();
        work();
        resolve();
      }),
    );
  // Two timers are two events; each gathers its reads. The first event's two reads begin
  // the shared transaction, so the second event's read has the same snapshot, in spite of
  // the other process's write between them.
  await Promise.all([
    event(() => {
      seen.push(count(), count());
      other.prepare('insert into t values (7)').run();
    }),
    event(() => seen.push(count())),
  ]);
  expect(seen).toEqual([1, 1, 1]);
  await nextEvent();
  expect(count()).toBe(2);
});
