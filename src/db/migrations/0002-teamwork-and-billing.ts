import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

/**
 * Issue 3: the service's own signing secret (shared by every process through the
 * database), one unlock charge per story and one open checkout per story and payer,
 * enforced by the database rather than by care.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema;
  await s
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  await sql`insert into settings (key, value) values ('signing_secret', ${randomBytes(32).toString('base64url')})`.execute(
    db,
  );

  await s
    .createIndex('billing_ledger_one_unlock')
    .on('billing_ledger')
    .column('story_id')
    .unique()
    .where(sql.ref('kind'), 'in', sql`('included', 'metered')`)
    .execute();
  await s
    .createIndex('checkout_sessions_one_open')
    .on('checkout_sessions')
    .columns(['story_id', 'account_id'])
    .unique()
    .where(sql.ref('status'), '=', 'open')
    .execute();
  await s
    .alterTable('outgoing_emails')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('notice'))
    .execute();
}
