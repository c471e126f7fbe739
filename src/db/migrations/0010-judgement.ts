import type { Kysely } from 'kysely';

/**
 * Issue 15: how each article speaks of its story's brand, −1 … 1 (docs/pipeline.md,
 * "Sentiment"; null for articles stored before and for languages not scored), and why
 * each story scored as it did: the signals that fired and the sentences they fired in
 * (JSON; empty for stories scored before).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('articles').addColumn('sentiment', 'real').execute();
  await db.schema
    .alterTable('stories')
    .addColumn('reasons', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
}
