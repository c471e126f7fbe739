import type { Kysely } from 'kysely';

/**
 * Issue 15: how each brand's name is told apart from the same word meaning something
 * else (docs/pipeline.md, "Names that are common words"): a JSON MatchPolicy, `{}` for
 * the defaults.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('brands')
    .addColumn('match_policy', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
}
