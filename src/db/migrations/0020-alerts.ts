import type { Kysely } from 'kysely';

/**
 * Issue 20: alerts and digests.
 *
 * `alert_rules`: what a person wants to hear of (brands, minimum severity, topics,
 * sentiment below a value, escalations) and where (email, Slack, Teams, the account's
 * webhooks). `alerts`: every alert raised, one per rule and story at most (the unique key
 * is what keeps two instances from raising it twice), with each channel's outcome.
 * On `users`: quiet hours and the digest's rhythm, nullable or defaulted so the previous
 * release's inserts of users still succeed. On `outgoing_emails`: extra headers (the
 * one-click unsubscribe of RFC 8058), nullable for the same reason.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('alert_rules')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('brands', 'text', (c) => c.notNull())
    .addColumn('min_severity', 'text', (c) => c.notNull())
    .addColumn('topics', 'text', (c) => c.notNull())
    .addColumn('sentiment_below', 'real')
    .addColumn('on_escalation', 'integer', (c) => c.notNull())
    .addColumn('email', 'integer', (c) => c.notNull())
    .addColumn('slack_url', 'text')
    .addColumn('teams_url', 'text')
    .addColumn('webhooks', 'integer', (c) => c.notNull())
    .addColumn('paused_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('alert_rules_account')
    .ifNotExists()
    .on('alert_rules')
    .columns(['account_id', 'user_id'])
    .execute();
  await db.schema
    .createTable('alerts')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('rule_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('story_id', 'text', (c) => c.notNull())
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('headline', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('link', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('channels', 'text', (c) => c.notNull())
    .addColumn('due_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('alerts_once', ['rule_id', 'story_id'])
    .execute();
  await db.schema
    .createIndex('alerts_user')
    .ifNotExists()
    .on('alerts')
    .columns(['account_id', 'user_id', 'created_at'])
    .execute();
  await db.schema.alterTable('users').addColumn('quiet_start', 'text').execute();
  await db.schema.alterTable('users').addColumn('quiet_end', 'text').execute();
  await db.schema
    .alterTable('users')
    .addColumn('digest', 'text', (c) => c.notNull().defaultTo('off'))
    .execute();
  await db.schema
    .alterTable('users')
    .addColumn('digest_hour', 'integer', (c) => c.notNull().defaultTo(8))
    .execute();
  await db.schema.alterTable('users').addColumn('digest_next_at', 'text').execute();
  await db.schema
    .createIndex('users_digest_due')
    .ifNotExists()
    .on('users')
    .column('digest_next_at')
    .execute();
  await db.schema.alterTable('outgoing_emails').addColumn('headers', 'text').execute();
  // Brand deletion removes a brand's alerts with its stories.
  await db.schema.createIndex('alerts_brand').on('alerts').column('brand_id').execute();
}
