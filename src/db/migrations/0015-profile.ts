import type { Kysely } from 'kysely';

/**
 * Issue 19: a person's profile keeps the time zone the portal shows times in (null: the
 * browser's). Nullable, so the previous release's inserts of users still succeed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('time_zone', 'text').execute();
}
