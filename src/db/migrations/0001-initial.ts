import { type Kysely, sql } from 'kysely';

/**
 * The whole data model in one migration, written with portable types only (text and
 * integer) so the same statements run on SQLite and PostgreSQL.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema;

  await s
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('trial_ends_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await s
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text')
    .addColumn('password_hash', 'text')
    .addColumn('email_verified_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await s
    .createTable('memberships')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['account_id', 'user_id'])
    .execute();
  await s.createIndex('memberships_user').on('memberships').column('user_id').execute();

  await s
    .createTable('user_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('data', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await s
    .createTable('brands')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('host', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('verified_at', 'text')
    .addColumn('aliases', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await s.createIndex('brands_account').on('brands').column('account_id').execute();

  await s
    .createTable('brand_feeds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('brand_id', 'text', (c) => c.notNull().references('brands.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('etag', 'text')
    .addColumn('last_modified', 'text')
    .addColumn('last_polled_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('brand_feeds_brand_url', ['brand_id', 'url'])
    .execute();

  await s
    .createTable('stories')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_uri', 'text', (c) => c.notNull().unique())
    .addColumn('brand_id', 'text', (c) => c.notNull().references('brands.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('topics', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('spread', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('new'))
    .addColumn('assignee_user_id', 'text', (c) => c.references('users.id'))
    .addColumn('detected_at', 'text', (c) => c.notNull())
    .addColumn('last_activity_at', 'text', (c) => c.notNull())
    .addColumn('unlocked_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // Serves the newest-first keyset pagination of list_stories.
  await s
    .createIndex('stories_brand_detected')
    .on('stories')
    .columns(['brand_id', 'detected_at', 'id'])
    .execute();

  await s
    .createTable('articles')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('story_id', 'text', (c) => c.notNull().references('stories.id'))
    .addColumn('source_key', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('canonical_url', 'text', (c) => c.notNull())
    .addColumn('publisher', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('articles_story_source', ['story_id', 'source_key'])
    .execute();
  await s.createIndex('articles_canonical').on('articles').column('canonical_url').execute();

  await s
    .createTable('advisories')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('story_id', 'text', (c) => c.notNull().references('stories.id'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('assessment', 'text')
    .addColumn('urgency', 'text')
    .addColumn('spread', 'text')
    .addColumn('schema', 'text', (c) => c.notNull())
    .addColumn('executive_summary', 'text', (c) => c.notNull())
    .addColumn('summary_basis', 'text', (c) => c.notNull())
    .addColumn('diff', 'text')
    .addColumn('context', 'text')
    .addColumn('generator', 'text', (c) => c.notNull())
    .addColumn('requested_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('applied_at', 'text')
    .addUniqueConstraint('advisories_story_version', ['story_id', 'version'])
    .execute();
  await s
    .createIndex('advisories_story_kind')
    .on('advisories')
    .columns(['story_id', 'kind'])
    .execute();
  // A story has one live advisory and at most one pending proposal, whatever races happen.
  for (const kind of ['live', 'proposal']) {
    await s
      .createIndex(`advisories_one_${kind}`)
      .on('advisories')
      .column('story_id')
      .unique()
      .where(sql.ref('kind'), '=', kind)
      .execute();
  }

  await s
    .createTable('phases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('advisory_id', 'text', (c) => c.notNull().references('advisories.id'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('actions', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('assignee_user_id', 'text', (c) => c.references('users.id'))
    .addColumn('done_by', 'text')
    .addColumn('done_at', 'text')
    .addColumn('comment', 'text')
    .addUniqueConstraint('phases_advisory_number', ['advisory_id', 'number'])
    .execute();

  await s
    .createTable('brand_notes')
    .addColumn('story_id', 'text', (c) => c.primaryKey().references('stories.id'))
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('author', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text', (c) => c.notNull())
    .execute();

  await s
    .createTable('shares')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('story_id', 'text', (c) => c.notNull().unique().references('stories.id'))
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('access', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('listed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await s
    .createTable('share_guests')
    .addColumn('share_id', 'text', (c) => c.notNull().references('shares.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('share_guests_pk', ['share_id', 'email'])
    .execute();

  await s
    .createTable('delegations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('client_account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('brand_id', 'text', (c) => c.notNull().references('brands.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('granted_at', 'text')
    .addColumn('ended_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await s
    .createIndex('delegations_partner')
    .on('delegations')
    .columns(['partner_account_id', 'status'])
    .execute();
  await s.createIndex('delegations_brand').on('delegations').column('brand_id').execute();
  await s
    .createIndex('delegations_one_active')
    .on('delegations')
    .columns(['brand_id', 'partner_account_id'])
    .unique()
    .where(sql.ref('status'), '=', 'active')
    .execute();

  await s
    .createTable('delegation_invites')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('brand_host', 'text', (c) => c.notNull())
    .addColumn('return_url', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('client_account_id', 'text', (c) => c.references('accounts.id'))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await s
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('lookup', 'text', (c) => c.notNull().unique())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('scope', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();

  await s
    .createTable('idempotency_records')
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('idem_key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_records_pk', ['api_key_id', 'idem_key'])
    .execute();

  await s
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('brand_id', 'text')
    .addColumn('story_id', 'text')
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await s.createIndex('audit_log_story').on('audit_log').column('story_id').execute();
  await s
    .createIndex('audit_log_account')
    .on('audit_log')
    .columns(['account_id', 'created_at'])
    .execute();

  await s
    .createTable('billing_subscriptions')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await s
    .createTable('billing_ledger')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('story_id', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await s
    .createIndex('billing_ledger_brand_period')
    .on('billing_ledger')
    .columns(['brand_id', 'period'])
    .execute();

  await s
    .createTable('checkout_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('story_id', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();

  await s
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'text')
    .addColumn('locked_by', 'text')
    .addColumn('last_error', 'text')
    .addColumn('result', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await s.createIndex('jobs_due').on('jobs').columns(['status', 'run_at']).execute();

  await s
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('disabled_at', 'text')
    .execute();

  await s
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('next_attempt_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
    .execute();

  await s
    .createTable('outgoing_emails')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text')
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('html_body', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .execute();

  await s
    .createTable('oauth_records')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('uid', 'text')
    .addColumn('consumed_at', 'text')
    .addColumn('expires_at', 'text')
    .addPrimaryKeyConstraint('oauth_records_pk', ['kind', 'id'])
    .execute();
  await s.createIndex('oauth_records_grant').on('oauth_records').column('grant_id').execute();
}
