import { type Kysely, sql } from 'kysely';

/**
 * Issue 5: the partner's billed quantity of client brands, as last sent to billing, and
 * the lookups of delegation invites by token and by (partner, brand).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema;
  await s
    .alterTable('billing_subscriptions')
    .addColumn('client_brands', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await s.alterTable('billing_subscriptions').addColumn('quantity_updated_at', 'text').execute();
  await s
    .createIndex('delegation_invites_token')
    .on('delegation_invites')
    .column('token_hash')
    .unique()
    .execute();
  // One pending invite per partner and brand: "the same token comes back".
  await s
    .createIndex('delegation_invites_one_pending')
    .on('delegation_invites')
    .columns(['partner_account_id', 'brand_host'])
    .unique()
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await s
    .createIndex('delegations_by_brand')
    .on('delegations')
    .columns(['brand_id', 'status'])
    .execute();
}
