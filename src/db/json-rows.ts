import { PostgresAdapter, type RawBuilder, sql } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { Db } from './database.js';

/**
 * On PostgreSQL, a subquery's rows as one JSON array value of the outer row (its order
 * kept): related rows read in the same statement, one round trip instead of one per list.
 * On SQLite, NULL: there a read costs no round trip, and building and parsing the JSON
 * cost more than the statement it saves (get_story 15% slower, measured), so the caller
 * reads the rows with a statement of their own.
 */
export function jsonRowsOnPostgres<O>(
  db: Db,
  rows: Parameters<typeof jsonArrayFrom<O>>[0],
): RawBuilder<unknown[] | null> {
  return db.getExecutor().adapter instanceof PostgresAdapter ? jsonArrayFrom(rows) : sql`null`;
}
