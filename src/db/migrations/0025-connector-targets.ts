import type { Kysely } from 'kysely';

/**
 * Issue 43. On `brand_connectors`: what a connector that reads named things reads for the
 * brand (the App Store apps, the YouTube channels, the Trustpilot page), a JSON array of
 * ids; null for a search. Nullable, so the previous release's inserts still succeed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('brand_connectors').addColumn('targets', 'text').execute();
}
