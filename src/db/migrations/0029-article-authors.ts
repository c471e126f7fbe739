import type { Kysely } from 'kysely';

/**
 * Issue 43. On `articles`: who wrote a post read as it is (a Mastodon account, a Reddit
 * user, a reviewer), for the story's sources and the mentions; null for an article read
 * from its page. Nullable, so the previous release's inserts still succeed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('articles').addColumn('author', 'text').execute();
}
