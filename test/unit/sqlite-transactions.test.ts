import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { openDatabase, withTransaction } from '../../src/db/database.js';

/**
 * A transaction on SQLite takes the write lock when it begins: another process that writes
 * meanwhile waits for it, instead of making the transaction's own write fail at once
 * ("database is locked", as an operator's `brs key revoke` did beside a running server).
 */
const dir = mkdtempSync(join(tmpdir(), 'brs-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a transaction that read first still writes when another connection wrote meanwhile', async () => {
  const file = join(dir, 'stories.db');
  const db = openDatabase(
    { dialect: 'sqlite', file },
    { connectMs: 1000, statementMs: 1000, busyMs: 1000 },
  );
  await sql`create table t (n integer)`.execute(db);
  // Another process, as a second connection: it does not wait for the lock.
  const other = new SQLite(file);
  other.pragma('busy_timeout = 0');
  let otherWrote = true;
  await withTransaction(db, async (trx) => {
    await sql`select count(*) from t`.execute(trx);
    try {
      other.prepare('insert into t values (2)').run();
    } catch {
      otherWrote = false;
    }
    await sql`insert into t values (1)`.execute(trx);
  });
  // The transaction held the lock, so the other writer was the one told to wait.
  expect(otherWrote).toBe(false);
  expect(other.prepare('select n from t').pluck().all()).toEqual([1]);
  other.close();
  await db.destroy();
});
