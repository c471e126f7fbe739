import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { migrate, migrator } from '../../src/db/database.js';
import { freshDatabase, testDialect } from '../support/databases.js';

/**
 * A migration on PostgreSQL gives way to serving instances instead of deadlocking them
 * (src/db/database.ts, migrateYielding): while a reader holds a table it must alter, it
 * waits 200 ms at most, rolls back (releasing the tables it had), and runs again; a reader
 * of a table it already altered is never held a whole second, so PostgreSQL never fails
 * it as a deadlock's victim.
 */
// SQLite has one writer and takes its lock before reading: there is nothing to give way to.
describe.skipIf(testDialect() !== 'postgres')('migrating a database in use', () => {
  it('waits for a reader holding a table, lets the others through, and finishes once it lets go', async () => {
    const db = await freshDatabase();
    const app = await createContext(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'fatal' }));
    const reader = new pg.Client({ connectionString: db.url });
    const other = new pg.Client({ connectionString: db.url });
    try {
      // The release before migration 0015 (users.time_zone, then 0017 phases.due_on).
      await migrator(app.db).migrateTo('0014-retention');
      await reader.connect();
      await other.connect();
      // A reader in a transaction holds phases, which migration 0017 alters.
      await reader.query('begin');
      await reader.query('select count(*) from phases');
      const migrating = migrate(app.db);
      // Meanwhile users, which 0015 alters first, stays readable within a second.
      const reads: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = Date.now();
        await other.query('select count(*) from users');
        reads.push(Date.now() - started);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(Math.max(...reads)).toBeLessThan(1000);
      await reader.query('commit');
      await expect(migrating).resolves.toEqual({ ahead: [] });
      const columns = await other.query(
        "select column_name from information_schema.columns where table_name = 'phases' and column_name = 'due_on'",
      );
      expect(columns.rows).toHaveLength(1);
    } finally {
      await reader.end();
      await other.end();
      await app.close();
      await db.drop();
    }
  });
});
