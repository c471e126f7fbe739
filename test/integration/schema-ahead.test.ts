import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type Db, migrate, migrator, openDatabase } from '../../src/db/database.js';
import { brsServe } from '../support/cli.js';
import { freshDatabase } from '../support/databases.js';

/**
 * A database a newer release migrated already (a rolling upgrade, a rollback): this
 * version starts and serves on it, since migrations are additive; a database that is
 * both ahead and behind is refused.
 */
let url: string;
let drop: () => Promise<void>;
let db: Db;

beforeAll(async () => {
  ({ url, drop } = await freshDatabase());
  const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'fatal', CONNECTORS: '' });
  db = openDatabase(config.database, config.databaseTimeouts);
  await migrate(db);
  // What a newer release's `brs migrate` leaves: a migration this version does not know,
  // and a column it does not know of.
  await db.schema.alterTable('stories').addColumn('from_the_future', 'text').execute();
  await sql`insert into kysely_migration (name, timestamp) values ('9999-future', ${new Date().toISOString()})`.execute(
    db,
  );
});
afterAll(async () => {
  await db?.destroy();
  await drop?.();
});

describe('a database ahead of this version', () => {
  it('is migrated to nothing: migrate answers what it does not know', async () => {
    expect(await migrate(db)).toEqual({ ahead: ['9999-future'] });
  });

  it('is served: brs serve starts on it and answers', async () => {
    const served = await brsServe({ DATABASE_URL: url });
    try {
      expect((await fetch(`${served.url}/readyz`)).status).toBe(200);
    } finally {
      await served.stop();
    }
  });

  it('is refused when it also lacks a migration this version needs', async () => {
    const names = (await migrator(db).getMigrations()).map((m) => m.name);
    const last = names.at(-1)!;
    const { rows } = await sql<{
      timestamp: string;
    }>`select timestamp from kysely_migration where name = ${last}`.execute(db);
    await sql`delete from kysely_migration where name = ${last}`.execute(db);
    try {
      await expect(migrate(db)).rejects.toThrow(
        `the database has migrations this version does not know (9999-future) and lacks some it needs (${last})`,
      );
    } finally {
      await sql`insert into kysely_migration (name, timestamp) values (${last}, ${rows[0]!.timestamp})`.execute(
        db,
      );
    }
  });
});
