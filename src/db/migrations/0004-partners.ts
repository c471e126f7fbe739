import { type Kysely, sql } from 'kysely';

/**
 * Issue 5: the partner's billed quantity of client brands, as last sent to billing, the
 * lookups of delegation invites by token and by (partner, brand), and onboarding sign-ups
 * waiting for their email to be confirmed (nothing else exists before that proof).
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
    .createTable('onboarding_signups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('invite_id', 'text', (c) => c.notNull().references('delegation_invites.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await s
    .createIndex('delegations_by_brand')
    .on('delegations')
    .columns(['brand_id', 'status'])
    .execute();
}
