import type { Kysely } from 'kysely';

/**
 * Issue 19: a phase of the response plan can be given a due date (`YYYY-MM-DD`); the
 * story page says when it is due, and when it is overdue. Nullable: the previous
 * release's inserts of phases still succeed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('phases').addColumn('due_on', 'text').execute();
}
