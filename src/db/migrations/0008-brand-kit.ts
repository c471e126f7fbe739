import type { Kysely } from 'kysely';

/**
 * Issue 13: a partner's brand kit, the look of the white-label onboarding its clients see.
 * One row per account; every field may be empty (then the account's name and the
 * service's look stand in).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('brand_kits')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('display_name', 'text')
    /** https only, no credentials, at most 2048 characters. */
    .addColumn('logo_url', 'text')
    /** `#rrggbb`, lower case: nothing else reaches a style sheet. */
    .addColumn('accent_color', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
