import type { Kysely } from 'kysely';

/** Issue 5: every delivery attempt of a partner webhook is recorded. */
export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema;
  await s
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .execute();
  await s
    .createIndex('webhook_attempts_delivery')
    .on('webhook_attempts')
    .column('delivery_id')
    .execute();
  await s
    .createIndex('webhook_deliveries_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'created_at'])
    .execute();
  await s
    .createIndex('webhook_endpoints_account')
    .on('webhook_endpoints')
    .column('account_id')
    .execute();
}
