import type { Kysely } from 'kysely';

/** Issue 6: feed polling state, the items each feed has already given, article lookups. */
export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema;
  // When the feed is due next; claimed by moving it forward, so one process polls it.
  await s.alterTable('brand_feeds').addColumn('next_poll_at', 'text').execute();
  await s.alterTable('brand_feeds').addColumn('last_status', 'text').execute();
  await s.alterTable('brand_feeds').addColumn('last_error', 'text').execute();
  await s.createIndex('brand_feeds_due').on('brand_feeds').column('next_poll_at').execute();
  await s
    .createTable('feed_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('feed_id', 'text', (c) => c.notNull().references('brand_feeds.id'))
    /** The item's guid, or its link when it has none. */
    .addColumn('item_key', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    /** created, joined, exists, or skipped (with the reason). */
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('event_uri', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('feed_items_feed_key', ['feed_id', 'item_key'])
    .execute();
  await s.createIndex('articles_url').on('articles').column('url').execute();
}
