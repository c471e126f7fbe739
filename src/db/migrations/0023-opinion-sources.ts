import type { Kysely } from 'kysely';

/**
 * Issue 42. On `articles`: 1 when the page declares itself opinion in its metadata
 * (`article:opinion`, an Opinion section, an OpinionNewsArticle), null otherwise. Kept so
 * that a rescore or a proposal, which read the stored sources, judge a column as the
 * first reading did. Nullable, so the previous release's inserts still succeed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('articles').addColumn('opinion', 'integer').execute();
}
