import { signLink } from '../auth/signed-links.js';
import type { AppContext } from '../context.js';
import { type Db, withTransaction } from '../db/database.js';
import { decode } from '../db/json-columns.js';
import type { AlertsTable, Severity } from '../db/schema.js';
import { queueEmail } from '../email/outbox.js';
import { conflict, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { ALERT_DELIVER, ALERTS_EVALUATE } from '../jobs/kinds.js';
import { enqueue } from '../jobs/queue.js';
import { safePost } from '../net/safe-post.js';
import { SEVERITIES } from '../pipeline/taxonomy.js';
import { brandAudience, queueDeliveries } from '../webhooks/events.js';
import { quietUntil } from './local-time.js';

/**
 * Alerts (docs/alerts.md): a person's rules say which stories they want to hear of and
 * where. When a story is created or escalates, the transaction that stores it queues a
 * check (`alerts.evaluate`) if anyone who reads the brand has a rule; the check raises at
 * most one alert per rule and story (a unique key, so instances racing on the same story
 * raise it once) and queues its delivery, at once or when the person's quiet hours end.
 * Delivery (`alert.deliver`) sends each channel once, retrying the ones that failed.
 */

export const ALERT_CHANNELS = ['email', 'slack', 'teams', 'webhooks'] as const;
export type AlertChannel = (typeof ALERT_CHANNELS)[number];
export type AlertTrigger = 'created' | 'escalated';

/** Rules a person keeps per account. */
export const MAX_RULES = 20;
/** How long an unsubscribe link works. */
const UNSUBSCRIBE_TTL_MS = 365 * 86_400_000;
/** A Slack or Teams receiver has this long to answer. */
const POST_TIMEOUT_MS = 10_000;

interface Owner {
  accountId: string;
  userId: string;
}

export interface RuleInput {
  name: string;
  brands: string[];
  minSeverity: Severity;
  topics: string[];
  sentimentBelow: number | null;
  onEscalation: boolean;
  /** Also when one of its brands' mentions spike. */
  onSpike: boolean;
  email: boolean;
  slackUrl: string | null;
  teamsUrl: string | null;
  webhooks: boolean;
}

export async function createAlertRule(db: Db, owner: Owner, rule: RuleInput, at: string) {
  const { count } = await db
    .selectFrom('alert_rules')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', owner.accountId)
    .where('user_id', '=', owner.userId)
    .executeTakeFirstOrThrow();
  if (Number(count) >= MAX_RULES)
    throw conflict(`you have ${MAX_RULES} alert rules: delete one first`);
  const id = newId('rule');
  await db
    .insertInto('alert_rules')
    .values({
      id,
      account_id: owner.accountId,
      user_id: owner.userId,
      name: rule.name,
      brands: JSON.stringify(rule.brands),
      min_severity: rule.minSeverity,
      topics: JSON.stringify(rule.topics),
      sentiment_below: rule.sentimentBelow,
      on_escalation: rule.onEscalation ? 1 : 0,
      on_spike: rule.onSpike ? 1 : 0,
      email: rule.email ? 1 : 0,
      slack_url: rule.slackUrl,
      teams_url: rule.teamsUrl,
      webhooks: rule.webhooks ? 1 : 0,
      paused_at: null,
      created_at: at,
    })
    .execute();
  return id;
}

export async function listAlertRules(db: Db, owner: Owner) {
  const rows = await db
    .selectFrom('alert_rules')
    .selectAll()
    .where('account_id', '=', owner.accountId)
    .where('user_id', '=', owner.userId)
    .orderBy('created_at')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    brands: JSON.parse(r.brands) as string[],
    min_severity: r.min_severity,
    topics: JSON.parse(r.topics) as string[],
    sentiment_below: r.sentiment_below,
    on_escalation: r.on_escalation === 1,
    on_spike: r.on_spike === 1,
    channels: channelsOf(r),
    // A receiver's address is a secret of sorts: its host says where without the token.
    slack_host: r.slack_url ? new URL(r.slack_url).host : null,
    teams_host: r.teams_url ? new URL(r.teams_url).host : null,
    paused: r.paused_at !== null,
    created_at: r.created_at,
  }));
}

/** Pauses or resumes one of the person's rules; someone else's is unknown. */
export async function setRulePaused(db: Db, owner: Owner, id: string, paused: boolean, at: string) {
  const r = await db
    .updateTable('alert_rules')
    .set({ paused_at: paused ? at : null })
    .where('id', '=', id)
    .where('account_id', '=', owner.accountId)
    .where('user_id', '=', owner.userId)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) throw notFound();
}

/** Deletes one of the person's rules; the alerts it raised stay in the record. */
export async function deleteAlertRule(db: Db, owner: Owner, id: string) {
  const r = await db
    .deleteFrom('alert_rules')
    .where('id', '=', id)
    .where('account_id', '=', owner.accountId)
    .where('user_id', '=', owner.userId)
    .executeTakeFirst();
  if (Number(r.numDeletedRows) === 0) throw notFound();
}

/** A person's quiet hours and digest, and the zone they are read in. */
export function alertSettingsOf(db: Db, userId: string) {
  return db
    .selectFrom('users')
    .select(['quiet_start', 'quiet_end', 'digest', 'digest_hour', 'digest_next_at', 'time_zone'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
}

/** Sets a person's quiet hours (HH:MM on their clock), or clears them with nulls. */
export async function setQuiet(
  db: Db,
  userId: string,
  quiet: { start: string | null; end: string | null },
) {
  await db
    .updateTable('users')
    .set({ quiet_start: quiet.start, quiet_end: quiet.end })
    .where('id', '=', userId)
    .execute();
}

/** The person's newest alerts with each channel's outcome. */
export async function recentAlerts(db: Db, owner: Owner, limit = 50) {
  const rows = await db
    .selectFrom('alerts as a')
    .innerJoin('brands as b', 'b.id', 'a.brand_id')
    .leftJoin('alert_rules as r', 'r.id', 'a.rule_id')
    .select([
      'a.id',
      'b.host',
      'a.headline',
      'a.severity',
      'a.trigger',
      'a.status',
      'a.channels',
      'a.link',
      'a.due_at',
      'a.sent_at',
      'a.created_at',
      'r.name as rule',
    ])
    .where('a.account_id', '=', owner.accountId)
    .where('a.user_id', '=', owner.userId)
    .orderBy('a.created_at', 'desc')
    .orderBy('a.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, channels: JSON.parse(r.channels) as ChannelOutcome[] }));
}

function channelsOf(r: {
  email: number;
  slack_url: string | null;
  teams_url: string | null;
  webhooks: number;
}): AlertChannel[] {
  return ALERT_CHANNELS.filter(
    (c) =>
      (c === 'email' && r.email === 1) ||
      (c === 'slack' && r.slack_url) ||
      (c === 'teams' && r.teams_url) ||
      (c === 'webhooks' && r.webhooks === 1),
  );
}

/**
 * Inside the transaction that creates or escalates a story: queues the check of the
 * alert rules when someone reading the brand has a rule that is not paused.
 */
export async function queueAlertCheck(
  db: Db,
  story: { id: string; brandId: string; accountId: string },
  trigger: AlertTrigger,
  at: string,
): Promise<void> {
  const audience = await brandAudience(db, { id: story.brandId, account_id: story.accountId });
  const any = await db
    .selectFrom('alert_rules')
    .select('id')
    .where('account_id', 'in', [...audience])
    .where('paused_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  if (any) await enqueue(db, ALERTS_EVALUATE, { story: story.id, trigger }, { now: at });
}

/** The rules of the brand's readers that are on, their person still in the team. */
async function activeRules(db: Db, brand: { id: string; account_id: string }) {
  const audience = await brandAudience(db, brand);
  return db
    .selectFrom('alert_rules as r')
    .innerJoin('memberships as m', (j) =>
      j.onRef('m.account_id', '=', 'r.account_id').onRef('m.user_id', '=', 'r.user_id'),
    )
    .innerJoin('users as u', 'u.id', 'r.user_id')
    .selectAll('r')
    .select(['u.time_zone', 'u.quiet_start', 'u.quiet_end'])
    .where('r.account_id', 'in', [...audience])
    .where('r.paused_at', 'is', null)
    .where('m.status', '=', 'active')
    .execute();
}
type ActiveRule = Awaited<ReturnType<typeof activeRules>>[number];

/**
 * One alert of one rule, held until its person's quiet hours end, and its delivery job, in
 * one transaction; the unique (rule, story) key makes a second raise (another instance, a
 * later escalation, the same spike) add nothing. Answers whether it was raised.
 */
async function raiseAlert(
  db: Db,
  r: ActiveRule,
  a: {
    story: string;
    brand: string;
    trigger: AlertsTable['trigger'];
    severity: Severity;
    headline: string;
    summary: string;
    link: string;
  },
  at: Date,
): Promise<boolean> {
  const quietEnd = quietUntil(at, { start: r.quiet_start, end: r.quiet_end }, r.time_zone ?? 'UTC');
  const due = (quietEnd ?? at).toISOString();
  const id = newId('alr');
  return withTransaction(db, async (trx) => {
    const inserted = await trx
      .insertInto('alerts')
      .values({
        id,
        rule_id: r.id,
        account_id: r.account_id,
        user_id: r.user_id,
        story_id: a.story,
        brand_id: a.brand,
        trigger: a.trigger,
        severity: a.severity,
        headline: a.headline,
        summary: a.summary,
        link: a.link,
        status: quietEnd ? 'held' : 'queued',
        channels: JSON.stringify(channelsOf(r).map((channel) => ({ channel, status: 'pending' }))),
        due_at: due,
        sent_at: null,
        created_at: at.toISOString(),
      })
      .onConflict((oc) => oc.columns(['rule_id', 'story_id']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
    await enqueue(
      trx,
      ALERT_DELIVER,
      { alert: id },
      { now: at.toISOString(), runAt: due, maxAttempts: 5 },
    );
    return true;
  });
}

/**
 * A brand's mentions spiking (mention-spikes.ts, in the transaction that tells it): an
 * alert for every rule of its readers that asks for spikes and covers the brand, on the
 * rule's channels, linking the brand's mentions. Answers how many were raised.
 */
export async function raiseSpikeAlerts(
  app: AppContext,
  spike: { id: string; brand: { id: string; account_id: string; host: string } },
  counts: { mentions: number; usual: number },
): Promise<number> {
  const at = app.clock.now();
  const rules = (await activeRules(app.db, spike.brand)).filter((r) => {
    const brands = JSON.parse(r.brands) as string[];
    return r.on_spike === 1 && (brands.length === 0 || brands.includes(spike.brand.host));
  });
  let raised = 0;
  for (const r of rules) {
    const told = await raiseAlert(
      app.db,
      r,
      {
        story: `spike:${spike.id}`,
        brand: spike.brand.id,
        trigger: 'spike',
        // Not a story's severity: the rule asked for spikes whatever the severity.
        severity: 'medium',
        headline: `${counts.mentions} mentions of ${spike.brand.host} in the last hour`,
        summary: `Against ${counts.usual} in an hour usually over the week before. See what is being said, newest first.`,
        link: `${app.config.baseUrl}/app/mentions?brand=${encodeURIComponent(spike.brand.host)}`,
      },
      at,
    );
    if (told) raised++;
  }
  return raised;
}

/** The `alerts.evaluate` job: raises the alerts of every matching rule, once each. */
export async function evaluateAlertsJob(
  app: AppContext,
  payload: { story: string; trigger: AlertTrigger },
) {
  const at = app.clock.now();
  const story = await app.db
    .selectFrom('stories as s')
    .innerJoin('brands as b', 'b.id', 's.brand_id')
    .innerJoin('advisories as a', (j) =>
      j.onRef('a.story_id', '=', 's.id').on('a.kind', '=', 'live'),
    )
    .leftJoin('story_documents as d', 'd.story_id', 's.id')
    .select([
      's.id',
      's.event_uri',
      's.title',
      's.severity',
      's.topics',
      's.brand_id',
      'b.host',
      'b.account_id',
      'a.executive_summary',
      'd.sentiment',
    ])
    .where('s.id', '=', payload.story)
    .executeTakeFirst();
  if (!story) return { raised: 0 };
  const topics = decode('stories.topics', story.topics);
  const rules = await activeRules(app.db, { id: story.brand_id, account_id: story.account_id });
  const matching = rules.filter((r) => {
    const brands = JSON.parse(r.brands) as string[];
    const wanted = JSON.parse(r.topics) as string[];
    return (
      (payload.trigger === 'created' || r.on_escalation === 1) &&
      SEVERITIES.indexOf(story.severity) >= SEVERITIES.indexOf(r.min_severity) &&
      (brands.length === 0 || brands.includes(story.host)) &&
      (wanted.length === 0 || wanted.some((t) => topics.includes(t))) &&
      (r.sentiment_below === null ||
        (story.sentiment !== null && story.sentiment < r.sentiment_below))
    );
  });
  const summary = decode('advisories.executive_summary', story.executive_summary)[0]?.text ?? '';
  const link = `${app.config.baseUrl}/app/stories/${encodeURIComponent(story.host)}/${encodeURIComponent(story.event_uri)}`;
  let raised = 0;
  for (const r of matching) {
    const facts = { story: story.id, brand: story.brand_id, trigger: payload.trigger };
    const alert = { severity: story.severity, headline: story.title, summary, link };
    if (await raiseAlert(app.db, r, { ...facts, ...alert }, at)) raised++;
  }
  return { raised };
}

export interface ChannelOutcome {
  channel: AlertChannel;
  /** cancelled: not to be sent any more (unsubscribed, the rule paused, …), `error` says why. */
  status: 'pending' | 'sent' | 'failed' | 'cancelled';
  error?: string;
}

/** The `alert.deliver` job: every channel not yet sent; a failure retries only those. */
export async function deliverAlertJob(app: AppContext, payload: { alert: string }) {
  const alert = await app.db
    .selectFrom('alerts as a')
    .innerJoin('users as u', 'u.id', 'a.user_id')
    .innerJoin('brands as b', 'b.id', 'a.brand_id')
    .leftJoin('alert_rules as r', 'r.id', 'a.rule_id')
    .leftJoin('memberships as m', (j) =>
      j.onRef('m.account_id', '=', 'a.account_id').onRef('m.user_id', '=', 'a.user_id'),
    )
    .selectAll('a')
    .select([
      'u.email',
      'b.host',
      'b.account_id as brand_account_id',
      'r.name as rule',
      'r.slack_url',
      'r.teams_url',
      'r.email as email_on',
      'r.paused_at',
      'm.status as membership',
    ])
    .where('a.id', '=', payload.alert)
    .executeTakeFirst();
  if (!alert || alert.status === 'sent' || alert.status === 'cancelled') return { skipped: true };
  const now = app.clock.now().toISOString();
  const channels = JSON.parse(alert.channels) as ChannelOutcome[];
  // Held for quiet hours or retried, an alert goes only where its person may still go:
  // still in the team, the brand still theirs to read, the rule still there and active.
  const audience = await brandAudience(app.db, {
    id: alert.brand_id,
    account_id: alert.brand_account_id,
  });
  const gone =
    alert.membership !== 'active'
      ? 'no longer in the team'
      : !audience.has(alert.account_id)
        ? 'the brand is no longer the team’s to read'
        : alert.rule === null
          ? 'the rule was deleted'
          : alert.paused_at !== null
            ? 'the rule is paused'
            : null;
  for (const c of channels) {
    if (c.status === 'sent') continue;
    const why = gone ?? (c.channel === 'email' && alert.email_on !== 1 ? 'unsubscribed' : null);
    if (why) Object.assign(c, { status: 'cancelled', error: why });
  }
  const save = (db: Db) =>
    db
      .updateTable('alerts')
      .set({ channels: JSON.stringify(channels) })
      .where('id', '=', alert.id)
      .execute();
  const text = alertText(alert);
  for (const c of channels) {
    if (c.status === 'sent' || c.status === 'cancelled') continue;
    try {
      if (c.channel === 'email' || c.channel === 'webhooks') {
        // Queued with the record that it was, in one transaction: a rerun sends it once.
        await withTransaction(app.db, async (trx) => {
          if (c.channel === 'email') {
            const unsubscribe = await unsubscribeUrl(app, { rule: alert.rule_id });
            await queueEmail(
              trx,
              {
                accountId: alert.account_id,
                to: alert.email,
                kind: 'alert',
                subject: `[${grade(alert)}] ${alert.headline}`,
                text: `${text}\n\n--\nYou get this email because of your alert rule "${alert.rule ?? 'deleted'}".\nStop these emails: ${unsubscribe}\nManage your alerts: ${app.config.baseUrl}/app/alerts\n`,
                headers: unsubscribeHeaders(unsubscribe),
              },
              now,
            );
          } else {
            await queueDeliveries(
              trx,
              new Set([alert.account_id]),
              'alert.triggered',
              {
                brand: alert.host,
                rule: alert.rule_id,
                trigger: alert.trigger,
                severity: alert.severity,
                headline: alert.headline,
                summary: alert.summary,
                link: alert.link,
              },
              now,
            );
          }
          c.status = 'sent';
          delete c.error;
          await save(trx);
        });
      } else {
        const url = c.channel === 'slack' ? alert.slack_url : alert.teams_url;
        if (!url) throw new Error('the rule no longer names this receiver');
        const body = c.channel === 'slack' ? slackMessage(alert) : teamsMessage(alert);
        const { status } = await safePost(
          app.config,
          url,
          JSON.stringify(body),
          { 'content-type': 'application/json' },
          POST_TIMEOUT_MS,
        );
        if (status < 200 || status >= 300) throw new Error(`the receiver answered HTTP ${status}`);
        c.status = 'sent';
        delete c.error;
        await save(app.db);
      }
    } catch (e) {
      c.status = 'failed';
      c.error = (e as Error).message;
    }
  }
  const failed = channels.filter((c) => c.status === 'failed' || c.status === 'pending');
  const sent = channels.some((c) => c.status === 'sent');
  await app.db
    .updateTable('alerts')
    .set({
      channels: JSON.stringify(channels),
      status: failed.length ? 'queued' : sent ? 'sent' : 'cancelled',
      sent_at: failed.length || !sent ? null : now,
    })
    .where('id', '=', alert.id)
    .execute();
  if (failed.length) {
    throw new Error(failed.map((c) => `${c.channel}: ${c.error}`).join('; '));
  }
  return { sent: channels.length };
}

/** Once its delivery has failed for good: the alert says so, with each channel's error. */
export async function giveUpAlert(app: AppContext, payload: { alert: string }) {
  await app.db
    .updateTable('alerts')
    .set({ status: 'failed' })
    .where('id', '=', payload.alert)
    .where('status', '!=', 'sent')
    .execute();
}

type AlertFacts = {
  headline: string;
  severity: string;
  host: string;
  trigger: AlertsTable['trigger'];
  summary: string;
  link: string;
};

const when = (a: AlertFacts) =>
  a.trigger === 'created'
    ? 'New story'
    : a.trigger === 'escalated'
      ? 'Story escalated'
      : 'Mentions spike';
/** A story's severity, or that it is a spike (which has none). */
const grade = (a: AlertFacts) => (a.trigger === 'spike' ? 'spike' : a.severity);
const opens = (a: AlertFacts) => (a.trigger === 'spike' ? 'Open the mentions' : 'Open the story');

function alertText(a: AlertFacts) {
  return `${when(a)} for ${a.host}${a.trigger === 'spike' ? '' : `, severity ${a.severity}`}:\n${a.headline}\n\n${a.summary}\n\n${opens(a)}: ${a.link}`;
}

/** Slack's incoming-webhook message: text for notifications, blocks for the client. */
function slackMessage(a: AlertFacts) {
  // Slack reads <…> as links and mentions (<!channel>) in text and mrkdwn alike: a headline
  // is anyone's text, so it is escaped as Slack asks. * and _ only style.
  const mrkdwn = (s: string) =>
    s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return {
    text: mrkdwn(`[${grade(a)}] ${a.headline} (${a.host})`),
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `*${mrkdwn(when(a))}: ${mrkdwn(a.headline)}*\n${mrkdwn(a.host)}${a.trigger === 'spike' ? '' : ` · severity *${a.severity}*`}\n${mrkdwn(a.summary)}`,
        },
      },
      {
        type: 'actions',
        elements: [{ type: 'button', text: { type: 'plain_text', text: opens(a) }, url: a.link }],
      },
    ],
  };
}

const plainRuns = (text: string, style: Record<string, unknown>) => ({
  type: 'RichTextBlock',
  inlines: [{ type: 'TextRun', text, ...style }],
});

/** A Teams incoming webhook (Workflows) message: one Adaptive Card. */
function teamsMessage(a: AlertFacts) {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          // TextRuns, not TextBlocks: a TextBlock renders Markdown, so a headline could
          // carry a link of its own; a TextRun shows its text as it is.
          body: [
            plainRuns(`${when(a)}: ${a.headline}`, { weight: 'Bolder' }),
            plainRuns(a.trigger === 'spike' ? a.host : `${a.host} · severity ${a.severity}`, {
              isSubtle: true,
            }),
            plainRuns(a.summary, {}),
          ],
          actions: [{ type: 'Action.OpenUrl', title: opens(a), url: a.link }],
        },
      },
    ],
  };
}

/** A signed one-click link that turns off one rule's emails, or the digest. */
export async function unsubscribeUrl(app: AppContext, what: { rule: string } | { digest: string }) {
  const token = await signLink(app, 'unsubscribe', what, UNSUBSCRIBE_TTL_MS);
  return `${app.config.baseUrl}/unsubscribe?t=${token}`;
}

/** RFC 8058: mail clients offer the link, and may POST to it in one click. */
export const unsubscribeHeaders = (url: string) => ({
  'List-Unsubscribe': `<${url}>`,
  'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
});

/** What an unsubscribe link turns off: a rule's emails, or a person's digest. */
export async function unsubscribe(db: Db, what: { rule?: unknown; digest?: unknown }, at: string) {
  if (typeof what.rule === 'string') {
    const r = await db
      .updateTable('alert_rules')
      .set({ email: 0 })
      .where('id', '=', what.rule)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return null;
    // A rule left with nowhere to send is paused rather than raising alerts for nobody.
    await db
      .updateTable('alert_rules')
      .set({ paused_at: at })
      .where('id', '=', what.rule)
      .where('slack_url', 'is', null)
      .where('teams_url', 'is', null)
      .where('webhooks', '=', 0)
      .where('paused_at', 'is', null)
      .execute();
    return 'alert';
  }
  if (typeof what.digest === 'string') {
    const r = await db
      .updateTable('users')
      .set({ digest: 'off', digest_next_at: null })
      .where('id', '=', what.digest)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0 ? 'digest' : null;
  }
  return null;
}
