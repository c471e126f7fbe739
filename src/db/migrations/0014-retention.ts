import type { Kysely } from 'kysely';

/**
 * Issue 18: tables that grow are pruned (src/domain/retention.ts). Each prune finds its
 * rows by one of these indexes, so it costs the rows it deletes, not the table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('idempotency_records_expiry')
    .on('idempotency_records')
    .column('expires_at')
    .execute();
  await db.schema
    .createIndex('jobs_finished')
    .on('jobs')
    .columns(['status', 'updated_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_finished')
    .on('webhook_deliveries')
    .columns(['status', 'created_at'])
    .execute();
}
