import type { Kysely } from 'kysely';

/**
 * Issue 43. Coverage the service finds itself: each brand's connectors (news search, Hacker
 * News, …), on by default and switched off by the team, polled like feeds (next_poll_at
 * claimed by compare-and-set), with what became of each item they found; and, per
 * connector across brands, how long the service it asks has told it to wait (429,
 * Retry-After).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema;
  await s
    .createTable('brand_connectors')
    .ifNotExists()
    // `<brand id>.<connector>`: made the same by every process, so seeding is idempotent.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('connector', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('cursor', 'text')
    .addColumn('next_poll_at', 'text')
    .addColumn('last_polled_at', 'text')
    .addColumn('last_status', 'text')
    .addColumn('last_error', 'text')
    .addColumn('failing_since', 'text')
    .addColumn('items_found', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('brand_connectors_brand_connector', ['brand_id', 'connector'])
    .execute();
  await s
    .createIndex('brand_connectors_due')
    .ifNotExists()
    .on('brand_connectors')
    .column('next_poll_at')
    .execute();
  await s
    .createTable('connector_items')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('brand_connector_id', 'text', (c) => c.notNull())
    .addColumn('item_key', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('event_uri', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('connector_items_connector_key', ['brand_connector_id', 'item_key'])
    .execute();
  await s
    .createTable('connector_backoff')
    .ifNotExists()
    .addColumn('connector', 'text', (c) => c.primaryKey())
    .addColumn('until', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .execute();
}
