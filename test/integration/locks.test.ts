import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type AppContext, createContext } from '../../src/context.js';
import { withTransaction } from '../../src/db/database.js';
import { lockRow } from '../../src/db/locks.js';
import { createAccount } from '../../src/domain/accounts.js';
import { migratedDatabase } from '../support/databases.js';

/**
 * lockRow, the one way work is serialised on a row, on the database the project runs
 * (SQLite or PostgreSQL): a second transaction locking the same row waits for the first
 * to commit and then sees its writes.
 */
let db: { url: string; drop: () => Promise<void> };
let app: AppContext;
let account: string;

beforeAll(async () => {
  db = await migratedDatabase();
  app = await createContext(loadConfig({ DATABASE_URL: db.url }));
  account = await createAccount(app, 'Locks', 'pro');
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

describe('lockRow', () => {
  it('makes a second transaction on the row wait for the first and read its write', async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let locked!: () => void;
    const firstLocked = new Promise<void>((r) => {
      locked = r;
    });
    const first = withTransaction(app.db, async (trx) => {
      expect(await lockRow(trx, 'accounts', { id: account })).toBe(account);
      locked();
      await held;
      await trx
        .updateTable('accounts')
        .set({ name: 'Renamed' })
        .where('id', '=', account)
        .execute();
      order.push('first committed');
    });
    await firstLocked;
    const second = withTransaction(app.db, async (trx) => {
      await lockRow(trx, 'accounts', { id: account });
      order.push('second locked');
      const { name } = await trx
        .selectFrom('accounts')
        .select('name')
        .where('id', '=', account)
        .executeTakeFirstOrThrow();
      return name;
    });
    // Give the second every chance to overtake the first; it must not.
    await new Promise((r) => setTimeout(r, 200));
    expect(order).toEqual([]);
    release();
    await first;
    expect(await second).toBe('Renamed');
    expect(order).toEqual(['first committed', 'second locked']);
  });

  it('answers undefined for no row, and refuses to run outside a transaction', async () => {
    expect(
      await withTransaction(app.db, (trx) => lockRow(trx, 'accounts', { id: 'acc_none' })),
    ).toBeUndefined();
    await expect(lockRow(app.db, 'accounts', { id: account })).rejects.toThrow(
      'outside a transaction',
    );
  });
});
