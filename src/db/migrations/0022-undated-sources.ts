import type { Kysely } from 'kysely';

/**
 * Issue 42. On `articles`: 1 when the page stated no publication date and none came with
 * it (a feed item's), so `published_at` is only the day it was read; null when dated. The
 * pages and the model's brief say "undated" instead of passing the reading day off as
 * the publication date. Nullable, so the previous release's inserts still succeed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('articles').addColumn('undated', 'integer').execute();
}
