/**
 * Table types for Kysely. Both dialects store the same shapes: ids and timestamps are
 * text (ISO 8601 UTC, which sorts correctly as text), booleans are 0/1 integers, JSON is
 * text, money is integer cents. Converting at the store's edge keeps one set of queries.
 */
import type { Generated } from 'kysely';

export type Bool = 0 | 1;
export type Plan = 'starter' | 'pro' | 'partner' | 'agency';
export type Role = 'owner' | 'admin' | 'member';
export type Severity = 'low' | 'medium' | 'high' | 'critical';
export type StoryStatus = 'new' | 'assigned' | 'in_progress' | 'closed';
export type Assessment = 'informational' | 'opportunity' | 'watch' | 'threat' | 'crisis';
export type Urgency = 'low' | 'medium' | 'high' | 'immediate';
export type Spread = 'contained' | 'growing' | 'widespread' | 'viral';
export type DelegationStatus = 'pending' | 'active' | 'dropped' | 'revoked';
export type InviteStatus = 'pending' | 'used' | 'declined' | 'expired' | 'revoked';

export interface AccountsTable {
  id: string;
  name: string;
  plan: Plan;
  /** 'handed_back' while a former client account is in its reclaim trial. */
  state: 'active' | 'handed_back';
  trial_ends_at: string | null;
  /** The plan the account works with until trial_ends_at (the reclaim trial), or null. */
  trial_plan: Plan | null;
  created_at: string;
}

export interface UsersTable {
  id: string;
  email: string;
  name: string | null;
  password_hash: string | null;
  email_verified_at: string | null;
  created_at: string;
  /** The IANA time zone the portal shows times in; null: the browser's (migration 0015). */
  time_zone: Generated<string | null>;
  /** Quiet hours, HH:MM in the user's time zone (UTC without one); null: none (0020). */
  quiet_start: Generated<string | null>;
  quiet_end: Generated<string | null>;
  /** The digest email's rhythm, at `digest_hour` local time (migration 0020). */
  digest: Generated<'off' | 'daily' | 'weekly'>;
  digest_hour: Generated<number>;
  /** When the next digest is due (UTC); null while digests are off. */
  digest_next_at: Generated<string | null>;
}

export interface MembershipsTable {
  account_id: string;
  user_id: string;
  role: Role;
  /** An invited teammate holds a seat. */
  status: 'active' | 'invited';
  created_at: string;
}

export interface UserTokensTable {
  id: string;
  user_id: string;
  /** 'session', 'email_confirm', 'password_reset', 'action_link', 'guest_link'. */
  purpose: string;
  token_hash: string;
  data: string | null;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface BrandsTable {
  id: string;
  account_id: string;
  host: string;
  name: string;
  verified: Bool;
  verified_at: string | null;
  /** JSON array of extra names the detector looks for. */
  aliases: string;
  /** JSON MatchPolicy: how the name is told from the same word meaning something else. */
  match_policy: Generated<string>;
  created_at: string;
}

export interface BrandFeedsTable {
  id: string;
  brand_id: string;
  url: string;
  etag: string | null;
  last_modified: string | null;
  last_polled_at: string | null;
  next_poll_at: string | null;
  /** What the last poll found, e.g. `200: 3 new items`, `304 not modified`. */
  last_status: string | null;
  last_error: string | null;
  created_at: string;
}

export interface FeedItemsTable {
  id: string;
  feed_id: string;
  item_key: string;
  url: string;
  outcome: string;
  event_uri: string | null;
  created_at: string;
}

export interface BrandConnectorsTable {
  id: string;
  brand_id: string;
  connector: string;
  enabled: Generated<number>;
  cursor: string | null;
  next_poll_at: string | null;
  last_polled_at: string | null;
  first_read_at: string | null;
  last_status: string | null;
  last_error: string | null;
  failing_since: string | null;
  items_found: Generated<number>;
  /** JSON (json-columns.ts): the apps, channels or pages a targeted connector reads. */
  targets: string | null;
  created_at: string;
}

export interface ConnectorItemsTable {
  id: string;
  brand_connector_id: string;
  item_key: string;
  url: string;
  outcome: string;
  event_uri: string | null;
  created_at: string;
}

export interface StreamStateTable {
  name: string;
  holder: string | null;
  lease_until: string | null;
  cursor: string | null;
  connected_at: string | null;
  last_event_at: string | null;
  last_error: string | null;
  failing_since: string | null;
}

export interface StreamPostsTable {
  uri: string;
  url: string;
  author: string;
  text: string;
  /** JSON (json-columns.ts). */
  links: string;
  published_at: string;
  /** JSON (json-columns.ts). */
  brand_ids: string;
  reach: Generated<number>;
  status: 'waiting' | 'queued' | 'read';
  created_at: string;
}

export interface StreamReactionsTable {
  uri: string;
  account: string;
  created_at: string;
}

export interface QuietMentionsTable {
  id: string;
  brand_id: string;
  url: string;
  title: string;
  text: string;
  publisher: string;
  author: string | null;
  type: string;
  language: string | null;
  sentiment: number | null;
  reach: number;
  /** JSON (json-columns.ts). */
  links: string;
  published_at: string;
  created_at: string;
}

export interface ConnectorBackoffTable {
  connector: string;
  until: string;
  reason: string;
}

export interface StoriesTable {
  id: string;
  event_uri: string;
  brand_id: string;
  title: string;
  severity: Severity;
  /** JSON array of topic tags. */
  topics: string;
  spread: Spread;
  status: StoryStatus;
  assignee_user_id: string | null;
  detected_at: string;
  last_activity_at: string;
  unlocked_at: string | null;
  created_at: string;
  /** JSON array of the signals behind severity and topics ({topic, signal, sentence, source}); '[]' by default. */
  reasons: Generated<string>;
}

export interface ArticlesTable {
  id: string;
  story_id: string;
  /** Citation id within the story: s1, s2, … */
  source_key: string;
  url: string;
  canonical_url: string;
  publisher: string;
  title: string;
  published_at: string;
  type: string;
  text: string;
  /** ISO 639-1 code of the article's language; null when unknown. */
  language: string | null;
  /** WHATWG name of the encoding its page was decoded from; null when not read from a page. */
  charset: string | null;
  /** How the article speaks of the story's brand, −1 … 1; null when not scored. */
  sentiment: number | null;
  /** 1 when no publication date was found: published_at is the day it was read. */
  undated: number | null;
  /** 1 when the page declares itself opinion (a column, an op-ed, an editorial). */
  opinion: number | null;
  /** Who wrote a post read as it is (its account, its reviewer); null for a page. */
  author: string | null;
  created_at: string;
}

export interface AdvisoriesTable {
  id: string;
  story_id: string;
  version: number;
  kind: 'live' | 'proposal' | 'superseded' | 'dismissed';
  /** A proposal is 'generating' until its advisor answers; every other kind is 'ready'. */
  status: 'generating' | 'ready';
  assessment: Assessment | null;
  urgency: Urgency | null;
  spread: Spread | null;
  schema: string;
  /** JSON: [{text, cites[]}]. */
  executive_summary: string;
  /** JSON: citation ids. */
  summary_basis: string;
  /** JSON: [{path, before, after}] against the live advisory (proposals only). */
  diff: string | null;
  context: string | null;
  generator: string;
  requested_at: string | null;
  created_at: string;
  applied_at: string | null;
}

export interface PhasesTable {
  id: string;
  advisory_id: string;
  number: number;
  title: string;
  /** JSON array of action strings. */
  actions: string;
  status: 'open' | 'done';
  assignee_user_id: string | null;
  done_by: string | null;
  done_at: string | null;
  comment: string | null;
  /** The day it is due, `YYYY-MM-DD` (UTC); null: no date (migration 0017). */
  due_on: Generated<string | null>;
}

export interface BrandNotesTable {
  story_id: string;
  text: string;
  author: string;
  published_at: string;
}

export interface SharesTable {
  id: string;
  story_id: string;
  token: string;
  access: 'public' | 'guests';
  mode: 'compact' | 'briefing' | 'full';
  listed: Bool;
  /**
   * The account whose key or user last set its settings (created or retuned it): a
   * partner's share stops with its delegation.
   */
  set_by_account_id: string | null;
  /** Set when the creating partner's delegation ended; the page answers 404 until re-enabled. */
  suspended_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ShareGuestsTable {
  share_id: string;
  email: string;
  /** The account that invited the guest: a partner's guests leave with its delegation. */
  added_by_account_id: string | null;
  created_at: string;
}

export interface DelegationsTable {
  id: string;
  partner_account_id: string;
  client_account_id: string;
  brand_id: string;
  status: DelegationStatus;
  granted_at: string | null;
  ended_at: string | null;
  created_at: string;
}

export interface DelegationInvitesTable {
  id: string;
  partner_account_id: string;
  brand_host: string;
  return_url: string;
  token_hash: string;
  status: InviteStatus;
  client_account_id: string | null;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

/** A sign-up through an invite, waiting for its emailed link (nothing else exists yet). */
export interface OnboardingSignupsTable {
  id: string;
  invite_id: string;
  email: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  /** The public lookup part of the key; the secret is only ever stored as a hash. */
  lookup: string;
  secret_hash: string;
  role: Role;
  /** JSON array of brand hosts, or null for a full-scope key. */
  scope: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface IdempotencyRecordsTable {
  api_key_id: string;
  idem_key: string;
  fingerprint: string;
  state: 'in_progress' | 'done';
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}

export interface AuditLogTable {
  id: string;
  account_id: string;
  brand_id: string | null;
  story_id: string | null;
  /** 'key:<id>', 'user:<id>' or 'operator'. */
  actor: string;
  action: string;
  details: string;
  created_at: string;
}

export interface BillingSubscriptionsTable {
  account_id: string;
  provider: string;
  external_id: string;
  status: string;
  created_at: string;
  /** The partner's billed quantity: active client brands, as last sent to billing. */
  client_brands: number;
  quantity_updated_at: string | null;
}

export interface BillingLedgerTable {
  id: string;
  /** The payer: the brand's account, or the partner for a delegated brand. */
  account_id: string;
  brand_id: string;
  story_id: string | null;
  kind: 'included' | 'metered' | 'purchase';
  amount_cents: number;
  currency: string;
  /** Calendar month (UTC) the unit counts against: YYYY-MM. */
  period: string;
  external_id: string | null;
  created_at: string;
}

export interface CheckoutSessionsTable {
  id: string;
  account_id: string;
  story_id: string;
  amount_cents: number;
  currency: string;
  status: 'open' | 'completed' | 'canceled' | 'refund_due' | 'expired';
  external_id: string | null;
  url: string;
  created_at: string;
  completed_at: string | null;
}

/** An unlock being metered: reserved, then committed (unlocked) or released (refused). */
export interface MeteringReservationsTable {
  /** The metering event's identifier and idempotency key at the provider. */
  id: string;
  story_id: string;
  /** The payer: the brand's account, or the partner for a delegated brand. */
  account_id: string;
  brand_id: string;
  /** The subscription's customer at the provider. */
  customer: string;
  actor: string;
  status: 'reserved' | 'committed' | 'released';
  /** Until then the process that reserved may still be calling the provider. */
  lease_until: string;
  created_at: string;
  settled_at: string | null;
}

export interface JobsTable {
  id: string;
  name: string;
  payload: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  attempts: number;
  max_attempts: number;
  run_at: string;
  locked_until: string | null;
  locked_by: string | null;
  last_error: string | null;
  result: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  /** JSON array of event types. */
  event_types: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  disabled_at: string | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  attempt: number;
  at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/** A story asked for from an article URL: its job, brand and URL (migration 0016). */
export interface StoryRequestsTable {
  job_id: string;
  brand_id: string;
  url: string;
  /** The actor label of who asked. */
  requested_by: string;
  created_at: string;
}

/** A story's words as full-text search reads them, and its filters by source (migration 0018). */
export interface StoryDocumentsTable {
  doc_id: Generated<number>;
  story_id: string;
  brand_id: string;
  /** Folded text (src/domain/story-documents.ts): lowercase letters and digits, single spaces. */
  body: string;
  /** The sources' most frequent language, ISO 639-1; null when none is known. */
  language: string | null;
  /** The mean sentiment of the scored sources, −1 … 1; null when none is scored. */
  sentiment: number | null;
  updated_at: string;
}

/** Mentions of a brand on a UTC day by one facet's value (migration 0019, domain/coverage.ts). */
export interface CoverageDaysTable {
  brand_id: string;
  facet: 'severity' | 'publisher' | 'topic' | 'type';
  /** YYYY-MM-DD, UTC. */
  day: string;
  value: string;
  mentions: number;
  /** Sum and count of the mentions' sentiment scores (those scored). */
  sentiment_sum: number;
  sentiment_n: number;
}

/** Stories per brand and status, kept by triggers on stories (migration 0019). */
export interface StoryStatusCountsTable {
  brand_id: string;
  status: StoryStatus;
  stories: number;
}

/** What a person wants to be alerted of, and where (migration 0020, domain/alerts.ts). */
export interface AlertRulesTable {
  id: string;
  account_id: string;
  user_id: string;
  name: string;
  /** JSON array of brand hosts; empty for every brand the account reads. */
  brands: string;
  min_severity: Severity;
  /** JSON array of topic tags; empty for any topic. */
  topics: string;
  /** Only stories whose mean sentiment is below this (−1 … 1); null for any. */
  sentiment_below: number | null;
  /** 1: also when an existing story escalates to the minimum severity or above. */
  on_escalation: number;
  /** 1: also when a brand's mentions spike (whatever the severity and topics). */
  on_spike: Generated<number>;
  email: number;
  slack_url: string | null;
  teams_url: string | null;
  /** 1: also as the `alert.triggered` event to the account's webhook endpoints. */
  webhooks: number;
  paused_at: string | null;
  created_at: string;
}

/** One alert raised: at most one per rule and story (migration 0020). */
export interface AlertsTable {
  id: string;
  rule_id: string;
  account_id: string;
  user_id: string;
  /** The story; for a spike, `spike:<audit id>` (one alert per rule and spike). */
  story_id: string;
  brand_id: string;
  trigger: 'created' | 'escalated' | 'spike';
  severity: Severity;
  headline: string;
  summary: string;
  link: string;
  /**
   * held (quiet hours) → queued → sent; failed once its channels gave up; cancelled when
   * nothing was left to send (its person left the team, the rule was paused, …).
   */
  status: 'held' | 'queued' | 'sent' | 'failed' | 'cancelled';
  /** JSON: [{channel, status: 'pending' | 'sent' | 'failed' | 'cancelled', error?}]. */
  channels: string;
  due_at: string;
  sent_at: string | null;
  created_at: string;
}

/** A user's named search in the portal (migration 0018). */
export interface SavedViewsTable {
  id: string;
  account_id: string;
  user_id: string;
  name: string;
  /** The search form's query string. */
  query: string;
  created_at: string;
}

export interface OutgoingEmailsTable {
  id: string;
  account_id: string | null;
  to_address: string;
  /** What the email is for: assignment, invitation, notice. */
  kind: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  /** JSON object of extra headers (List-Unsubscribe), or null (migration 0020). */
  headers: Generated<string | null>;
  /** The sender's display name when not MAIL_FROM's own: a partner's (migration 0021). */
  from_name: Generated<string | null>;
  status: string;
  error: string | null;
  created_at: string;
  sent_at: string | null;
}

/** Generic store for OAuth server state (clients, grants, codes, tokens), by model kind. */
export interface OauthRecordsTable {
  kind: string;
  id: string;
  payload: string;
  grant_id: string | null;
  uid: string | null;
  consumed_at: string | null;
  expires_at: string | null;
  /** The membership (`account:user`) it was issued to, when it has one. */
  subject: string | null;
  /** A grant's last use by an access token at /mcp, to the minute. */
  last_used_at: string | null;
}

/** A partner's look on the white-label onboarding of its clients (empty fields fall back). */
export interface BrandKitsTable {
  account_id: string;
  display_name: string | null;
  logo_url: string | null;
  accent_color: string | null;
  updated_at: string;
}

/** Service-wide values every process must agree on (the link-signing secret). */
export interface SettingsTable {
  key: string;
  value: string;
}

export interface DB {
  accounts: AccountsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  user_tokens: UserTokensTable;
  brands: BrandsTable;
  brand_feeds: BrandFeedsTable;
  feed_items: FeedItemsTable;
  brand_connectors: BrandConnectorsTable;
  connector_items: ConnectorItemsTable;
  connector_backoff: ConnectorBackoffTable;
  stream_state: StreamStateTable;
  stream_posts: StreamPostsTable;
  quiet_mentions: QuietMentionsTable;
  stream_reactions: StreamReactionsTable;
  stories: StoriesTable;
  articles: ArticlesTable;
  advisories: AdvisoriesTable;
  phases: PhasesTable;
  brand_notes: BrandNotesTable;
  shares: SharesTable;
  share_guests: ShareGuestsTable;
  delegations: DelegationsTable;
  delegation_invites: DelegationInvitesTable;
  onboarding_signups: OnboardingSignupsTable;
  api_keys: ApiKeysTable;
  idempotency_records: IdempotencyRecordsTable;
  audit_log: AuditLogTable;
  billing_subscriptions: BillingSubscriptionsTable;
  billing_ledger: BillingLedgerTable;
  checkout_sessions: CheckoutSessionsTable;
  jobs: JobsTable;
  metering_reservations: MeteringReservationsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  outgoing_emails: OutgoingEmailsTable;
  story_requests: StoryRequestsTable;
  story_documents: StoryDocumentsTable;
  saved_views: SavedViewsTable;
  coverage_days: CoverageDaysTable;
  alert_rules: AlertRulesTable;
  alerts: AlertsTable;
  story_status_counts: StoryStatusCountsTable;
  oauth_records: OauthRecordsTable;
  settings: SettingsTable;
  brand_kits: BrandKitsTable;
}
