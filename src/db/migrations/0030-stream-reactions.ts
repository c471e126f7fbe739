import type { Kysely } from 'kysely';

/**
 * Issue 43. Who reacted to a Bluesky post waiting for reach (domain/bluesky-stream.ts): a
 * post's reach is how many accounts other than its author liked, reposted or answered
 * it, each once however often they do (a like undone and done again, ten replies), so
 * one account cannot make its own post a story.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('stream_reactions')
    .ifNotExists()
    .addColumn('uri', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('stream_reactions_pk', ['uri', 'account'])
    .execute();
  await db.schema
    .createIndex('stream_reactions_created')
    .ifNotExists()
    .on('stream_reactions')
    .columns(['created_at'])
    .execute();
}
