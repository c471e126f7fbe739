import type { Kysely } from 'kysely';

/**
 * Issue 43. Bluesky read from its Jetstream, one stream for every brand
 * (domain/bluesky-stream.ts): `stream_state` holds which process reads it (a lease), where
 * it has read to (Jetstream's time cursor, so another process resumes there) and how it is
 * doing; `stream_posts` the posts that named a brand, waiting for reach (likes, reposts,
 * replies) until they have enough or two days pass.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema;
  await s
    .createTable('stream_state')
    .ifNotExists()
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('cursor', 'text')
    .addColumn('connected_at', 'text')
    .addColumn('last_event_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('failing_since', 'text')
    .execute();
  await s
    .createTable('stream_posts')
    .ifNotExists()
    // The post's at:// address: a replayed event is the same row.
    .addColumn('uri', 'text', (c) => c.primaryKey())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('author', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('links', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text', (c) => c.notNull())
    .addColumn('brand_ids', 'text', (c) => c.notNull())
    .addColumn('reach', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await s
    .createIndex('stream_posts_created')
    .ifNotExists()
    .on('stream_posts')
    .columns(['created_at'])
    .execute();
}
