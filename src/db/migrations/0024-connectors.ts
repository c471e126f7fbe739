import type { Kysely } from 'kysely';

/**
 * Issue 43. Coverage the service finds itself: each brand's connectors (news search, Hacker
 * News, …), on by default and switched off by the team, polled like feeds (next_poll_at
 * claimed by compare-and-set), with what became of each item they found; and, per
 * connector across brands, when its next requests may be claimed (`connector_backoff`:
 * the minute's window one process takes, or the wait a 429's Retry-After asked for).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema;
  await s
    .createTable('brand_connectors')
    .ifNotExists()
    // `<brand id>.<connector>`: made the same by every process, so seeding is idempotent.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('brand_id', 'text', (c) => c.notNull().references('brands.id'))
    .addColumn('connector', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('cursor', 'text')
    .addColumn('next_poll_at', 'text')
    .addColumn('last_polled_at', 'text')
    // The first answer read: until then a poll is the first, whose backlog is history.
    .addColumn('first_read_at', 'text')
    .addColumn('last_status', 'text')
    .addColumn('last_error', 'text')
    .addColumn('failing_since', 'text')
    .addColumn('items_found', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('brand_connectors_brand_connector', ['brand_id', 'connector'])
    .execute();
  // The scheduler's question: a connector's rows that are on and due, oldest first.
  await s
    .createIndex('brand_connectors_due')
    .ifNotExists()
    .on('brand_connectors')
    .columns(['connector', 'enabled', 'next_poll_at'])
    .execute();
  await s
    .createTable('connector_items')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('brand_connector_id', 'text', (c) => c.notNull().references('brand_connectors.id'))
    .addColumn('item_key', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('event_uri', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('connector_items_connector_key', ['brand_connector_id', 'item_key'])
    .execute();
  // A brand's mentions of the last hour and week, for spikes (domain/mention-spikes.ts).
  await s
    .createIndex('articles_created')
    .ifNotExists()
    .on('articles')
    .column('created_at')
    .execute();
  // Retention prunes what was found long ago (domain/retention.ts).
  await s
    .createIndex('connector_items_created')
    .ifNotExists()
    .on('connector_items')
    .column('created_at')
    .execute();
  await s
    .createTable('connector_backoff')
    .ifNotExists()
    .addColumn('connector', 'text', (c) => c.primaryKey())
    .addColumn('until', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .execute();
}
