import type { Kysely } from 'kysely';

/**
 * Issue 41. On `outgoing_emails`: the sender's display name, for emails sent on a
 * partner's behalf (a delegation invite's onboarding email carries the partner's
 * white-label name); null sends as MAIL_FROM names itself. Nullable, so the previous
 * release's inserts still succeed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('outgoing_emails').addColumn('from_name', 'text').execute();
}
