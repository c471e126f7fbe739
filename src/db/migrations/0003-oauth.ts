import type { Kysely } from 'kysely';

/**
 * Issue 4: the OAuth server's state lives in `oauth_records` (created empty in 0001).
 * Sessions are found by uid and expired records are swept by expiry.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('oauth_records_uid').on('oauth_records').column('uid').execute();
  await db.schema
    .createIndex('oauth_records_expiry')
    .on('oauth_records')
    .column('expires_at')
    .execute();
}
