import { type Kysely, sql } from 'kysely';

/**
 * Issue 16: the metering call leaves the unlock's transaction. An unlock past the
 * included units first reserves (a row here, committed), then calls the provider with
 * the reservation's id as the event's identifier and idempotency key, then commits the
 * unlock or releases the reservation. A reservation left `reserved` by a process that
 * died is settled by the billing.settle job or the next unlock of the story, with the
 * same id, so the provider counts it once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('metering_reservations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('story_id', 'text', (c) => c.notNull().references('stories.id'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('customer', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('settled_at', 'text')
    .execute();
  await db.schema
    .createIndex('metering_reservations_one_open')
    .on('metering_reservations')
    .column('story_id')
    .unique()
    .where(sql.ref('status'), '=', 'reserved')
    .execute();
}
