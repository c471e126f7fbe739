import { z } from 'zod';
import {
  ALERT_CHANNELS,
  alertSettingsOf,
  createAlertRule,
  deleteAlertRule,
  listAlertRules,
  recentAlerts,
  setQuiet,
  setRulePaused,
} from '../../domain/alerts.js';
import { DIGEST_RHYTHMS, setDigest } from '../../domain/digests.js';
import { invalid } from '../../errors.js';
import { assertPublicUrl } from '../../net/public-url.js';
import { TOPICS } from '../../pipeline/taxonomy.js';
import { type Actor, brandFor, signedInPerson } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, Ok, Severity } from '../schemas.js';

/** Alert rules, alerts and digests belong to a person signed in; a key has none. */
const ownerOf = (actor: Actor) => signedInPerson(actor, 'alerts belong to people signed in');

const HHMM = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time, HH:MM')
  .or(z.literal(''));

export const listAlertRulesOp = defineOperation({
  id: 'list_alert_rules',
  summary: 'My alert rules',
  input: z.strictObject({}),
  output: z.object({
    rules: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        brands: z.array(z.string()),
        min_severity: Severity,
        topics: z.array(z.string()),
        sentiment_below: z.number().nullable(),
        on_escalation: z.boolean(),
        on_spike: z.boolean(),
        channels: z.array(z.enum(ALERT_CHANNELS)),
        slack_host: z.string().nullable(),
        teams_host: z.string().nullable(),
        paused: z.boolean(),
        created_at: z.string(),
      }),
    ),
  }),
  access: {},
  portal: true,
  async handler({ app, actor }) {
    return { rules: await listAlertRules(app.db, ownerOf(actor)) };
  },
});

export const createAlertRuleOp = defineOperation({
  id: 'create_alert_rule',
  summary: 'Create an alert rule',
  input: z.strictObject({
    name: z.string().trim().min(1, 'give the rule a name').max(60, 'must be at most 60 characters'),
    brands: z.array(BrandHost).max(100).default([]),
    min_severity: Severity,
    topics: z
      .array(z.enum(TOPICS.map((t) => t.tag) as [string, ...string[]]))
      .max(20)
      .default([]),
    sentiment_below: z.coerce
      .number('must be a number from -1 to 1')
      .min(-1, 'must be a number from -1 to 1')
      .max(1, 'must be a number from -1 to 1')
      .optional(),
    on_escalation: z.boolean().default(false),
    /** Also when one of its brands' mentions spike (docs/sources.md, "Spikes"). */
    on_spike: z.boolean().default(false),
    email: z.boolean().default(false),
    slack_url: z.string().trim().max(2000).optional(),
    teams_url: z.string().trim().max(2000).optional(),
    webhooks: z.boolean().default(false),
  }),
  output: z.object({ ok: Ok, id: z.string() }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    const owner = ownerOf(actor);
    // A brand the account does not read is unknown, as everywhere.
    for (const host of input.brands) await brandFor(app, actor, host);
    const slackUrl = input.slack_url
      ? (await assertPublicUrl(app.config, input.slack_url, 'slack_url')).href
      : null;
    const teamsUrl = input.teams_url
      ? (await assertPublicUrl(app.config, input.teams_url, 'teams_url')).href
      : null;
    if (!input.email && !slackUrl && !teamsUrl && !input.webhooks) {
      throw invalid('channels: choose at least one place to send the alerts');
    }
    const id = await createAlertRule(
      app.db,
      owner,
      {
        name: input.name,
        brands: [...new Set(input.brands)],
        minSeverity: input.min_severity,
        topics: [...new Set(input.topics)],
        sentimentBelow: input.sentiment_below ?? null,
        onEscalation: input.on_escalation,
        onSpike: input.on_spike,
        email: input.email,
        slackUrl,
        teamsUrl,
        webhooks: input.webhooks,
      },
      app.clock.now().toISOString(),
    );
    return { ok: true, id };
  },
});

const RuleRef = z.strictObject({ id: z.string().min(1).max(40) });

export const pauseAlertRule = defineOperation({
  id: 'pause_alert_rule',
  summary: 'Pause an alert rule',
  input: RuleRef,
  output: z.object({ ok: Ok }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    await setRulePaused(app.db, ownerOf(actor), input.id, true, app.clock.now().toISOString());
    return { ok: true };
  },
});

export const resumeAlertRule = defineOperation({
  id: 'resume_alert_rule',
  summary: 'Resume an alert rule',
  input: RuleRef,
  output: z.object({ ok: Ok }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    await setRulePaused(app.db, ownerOf(actor), input.id, false, app.clock.now().toISOString());
    return { ok: true };
  },
});

export const deleteAlertRuleOp = defineOperation({
  id: 'delete_alert_rule',
  summary: 'Delete an alert rule',
  input: RuleRef,
  output: z.object({ ok: Ok }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    await deleteAlertRule(app.db, ownerOf(actor), input.id);
    return { ok: true };
  },
});

export const listAlertsOp = defineOperation({
  id: 'list_alerts',
  summary: 'My recent alerts',
  input: z.strictObject({}),
  output: z.object({
    alerts: z.array(
      z.object({
        id: z.string(),
        host: z.string(),
        headline: z.string(),
        severity: Severity,
        trigger: z.enum(['created', 'escalated', 'spike']),
        status: z.enum(['held', 'queued', 'sent', 'failed', 'cancelled']),
        channels: z.array(
          z.object({
            channel: z.enum(ALERT_CHANNELS),
            status: z.enum(['pending', 'sent', 'failed', 'cancelled']),
            error: z.string().optional(),
          }),
        ),
        link: z.string(),
        due_at: z.string(),
        sent_at: z.string().nullable(),
        created_at: z.string(),
        rule: z.string().nullable(),
      }),
    ),
  }),
  access: {},
  portal: true,
  async handler({ app, actor }) {
    return { alerts: await recentAlerts(app.db, ownerOf(actor)) };
  },
});

export const alertSettings = defineOperation({
  id: 'alert_settings',
  summary: 'My quiet hours and digest',
  input: z.strictObject({}),
  output: z.object({
    quiet_start: z.string().nullable(),
    quiet_end: z.string().nullable(),
    digest: z.enum(DIGEST_RHYTHMS),
    digest_hour: z.number(),
    digest_next_at: z.string().nullable(),
    time_zone: z.string().nullable(),
  }),
  access: {},
  portal: true,
  async handler({ app, actor }) {
    return alertSettingsOf(app.db, ownerOf(actor).userId);
  },
});

export const setQuietHours = defineOperation({
  id: 'set_quiet_hours',
  summary: 'Set or clear my quiet hours',
  input: z.strictObject({ start: HHMM, end: HHMM }),
  output: z.object({ ok: Ok, start: z.string().nullable(), end: z.string().nullable() }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    const { userId } = ownerOf(actor);
    if (!input.start !== !input.end) throw invalid('end: give both times, or neither to clear');
    if (input.start && input.start === input.end) throw invalid('end: must differ from start');
    const quiet = { start: input.start || null, end: input.end || null };
    await setQuiet(app.db, userId, quiet);
    return { ok: true, ...quiet };
  },
});

export const setDigestOp = defineOperation({
  id: 'set_digest',
  summary: 'Choose my digest email',
  input: z.strictObject({
    digest: z.enum(DIGEST_RHYTHMS),
    hour: z.coerce.number('must be an hour, 0 to 23').int().min(0).max(23).default(8),
  }),
  output: z.object({ ok: Ok, digest: z.enum(DIGEST_RHYTHMS), next_at: z.string().nullable() }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    const { userId } = ownerOf(actor);
    return {
      ok: true,
      ...(await setDigest(app.db, userId, input.digest, input.hour, app.clock.now())),
    };
  },
});
