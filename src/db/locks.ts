import { PostgresAdapter, sql } from 'kysely';
import type { Db } from './database.js';

/** The rows work is serialised on: a story, a brand, an account, a webhook endpoint's. */
export type Lockable =
  | 'stories'
  | 'brands'
  | 'accounts'
  | 'webhook_endpoints'
  | 'webhook_deliveries';

/**
 * The one way to serialise work on a row: locks it until the transaction ends, so
 * transactions touching the same story (brand, account) run one after another and each
 * sees what the one before it committed. On PostgreSQL that is `SELECT … FOR UPDATE`; on
 * SQLite every write transaction begins immediate (database.ts), taking the database's
 * single write lock before it reads anything, so the row only has to be found. Answers
 * the row's id, or undefined when no row matches.
 */
export async function lockRow(
  trx: Db,
  table: Lockable,
  match: Record<string, string>,
): Promise<string | undefined> {
  if (!trx.isTransaction) throw new Error('lockRow outside a transaction locks nothing');
  let q = trx.selectFrom(table).select(sql<string>`id`.as('id'));
  for (const [column, value] of Object.entries(match)) q = q.where(sql.ref(column), '=', value);
  if (trx.getExecutor().adapter instanceof PostgresAdapter) q = q.forUpdate();
  return (await q.executeTakeFirst())?.id;
}

/**
 * Locks every row that matches, as lockRow locks one: for work on a whole set (a brand's
 * stories, before the brand itself, in the order single-story work takes them).
 */
export async function lockRows(trx: Db, table: Lockable, match: Record<string, string>) {
  if (!trx.isTransaction) throw new Error('lockRows outside a transaction locks nothing');
  let q = trx.selectFrom(table).select(sql<string>`id`.as('id'));
  for (const [column, value] of Object.entries(match)) q = q.where(sql.ref(column), '=', value);
  if (trx.getExecutor().adapter instanceof PostgresAdapter)
    q = q.orderBy(sql.ref('id')).forUpdate();
  return (await q.execute()).map((r) => r.id);
}
