import type { FastifyInstance, FastifyReply } from 'fastify';
import { verifyLink } from '../../auth/signed-links.js';
import type { AppContext } from '../../context.js';
import { unsubscribe } from '../../domain/alerts.js';
import { pageError, restError } from '../../errors.js';
import { listBrands } from '../../operations/brands/list-brands.js';
import type { Operation } from '../../operations/operation.js';
import {
  alertSettings,
  createAlertRuleOp,
  deleteAlertRuleOp,
  listAlertRulesOp,
  listAlertsOp,
  pauseAlertRule,
  resumeAlertRule,
  setDigestOp,
  setQuietHours,
} from '../../operations/portal/alerts.js';
import { TOPICS } from '../../pipeline/taxonomy.js';
import { formField, formFields } from '../forms.js';
import { type Html, html } from '../html.js';
import { type Output, portalRoutes, run, type View } from './guard.js';
import { appPage, csrfField, notice, problem, publicPage, when } from './layout.js';
import { sevBadge } from './story-page.js';

type Rule = Output<typeof listAlertRulesOp>['rules'][number];

const CHANNEL_LABEL = { email: 'email', slack: 'Slack', teams: 'Teams', webhooks: 'webhooks' };

function ruleText(r: Rule): Html {
  const parts = [
    r.brands.length ? r.brands.join(', ') : 'all brands',
    r.min_severity === 'critical' ? 'critical only' : `${r.min_severity} and above`,
    r.topics.length ? `topics: ${r.topics.join(', ')}` : '',
    r.sentiment_below !== null ? `sentiment below ${r.sentiment_below}` : '',
    r.on_escalation ? 'new and escalated stories' : 'new stories',
    r.on_spike ? 'mention spikes' : '',
  ].filter(Boolean);
  return html`${parts.join(' · ')}`;
}

const channelsText = (r: Rule) =>
  r.channels
    .map((c) =>
      c === 'slack'
        ? `Slack (${r.slack_host})`
        : c === 'teams'
          ? `Teams (${r.teams_host})`
          : CHANNEL_LABEL[c],
    )
    .join(', ');

const ruleButton = (v: View, action: string, r: Rule, label: string, kind = 'secondary') =>
  html`<form class="inline" method="post" action="/app/alerts/rules/${r.id}/${action}">${csrfField(v.csrf)}<button type="submit" class="${kind}" aria-label="${label} the rule ${r.name}">${label}</button></form>`;

const hours = (current: number) =>
  Array.from({ length: 24 }, (_, h) => h).map(
    (h) =>
      html`<option value="${h}"${h === current ? html` selected` : ''}>${String(h).padStart(2, '0')}:00</option>`,
  );

/** Alerts: a person's rules, where they go, quiet hours, the digest, and what was sent. */
export function mountAlertPages(fastify: FastifyInstance, app: AppContext) {
  const routes = portalRoutes(fastify, app, 'alerts');

  async function alertsPage(v: View, extra: { done?: string; error?: string } = {}) {
    const { rules } = await run(app, v, listAlertRulesOp, {});
    const { alerts } = await run(app, v, listAlertsOp, {});
    const settings = await run(app, v, alertSettings, {});
    const { brands } = await run(app, v, listBrands, {});
    const zone = settings.time_zone ?? 'UTC';
    return appPage(
      v,
      'Alerts',
      html`<h1>Alerts</h1>${notice(extra.done)}${problem(extra.error)}
<p class="muted">Hear of a story within a minute of it being found, or of it growing more serious: by email, in Slack or Microsoft Teams, or on your team's webhooks. Each rule alerts once per story.</p>
<h2>Your rules</h2>
<div class="table-wrap"><table><thead><tr><th scope="col">Rule</th><th scope="col">Stories</th><th scope="col">Sent to</th><th scope="col">State</th><th scope="col"></th></tr></thead><tbody>
${rules.map(
  (r) =>
    html`<tr><th scope="row">${r.name}</th><td data-label="Stories" class="small">${ruleText(r)}</td><td data-label="Sent to" class="small">${channelsText(r)}</td>
<td data-label="State">${r.paused ? html`<span class="badge sev-medium">paused</span>` : 'active'}</td>
<td>${r.paused ? ruleButton(v, 'resume', r, 'Resume') : ruleButton(v, 'pause', r, 'Pause')} ${ruleButton(v, 'delete', r, 'Delete', 'danger')}</td></tr>`,
)}${rules.length === 0 ? html`<tr><td colspan="5" class="muted">No rules yet: add one below.</td></tr>` : ''}</tbody></table></div>
<h2>Add a rule</h2>
<form method="post" action="/app/alerts/rules" class="card">${csrfField(v.csrf)}
<label for="rule-name">Name</label><input id="rule-name" name="name" type="text" required maxlength="60" placeholder="e.g. Anything serious">
<fieldset><legend><strong>Brands</strong> (none ticked: all)</legend>${brands.map(
        (b) =>
          html`<label><input type="checkbox" name="brands" value="${b.brand}"> ${b.name} (${b.brand})</label>`,
      )}</fieldset>
<label for="rule-severity">Minimum severity</label><select id="rule-severity" name="min_severity">
<option value="low">low</option><option value="medium">medium</option><option value="high" selected>high</option><option value="critical">critical</option></select>
<details><summary>Topics and sentiment</summary>
<fieldset><legend><strong>Topics</strong> (none ticked: any)</legend>${TOPICS.map(
        (t) =>
          html`<label><input type="checkbox" name="topics" value="${t.tag}"> ${t.tag.replaceAll('-', ' ')}</label>`,
      )}</fieldset>
<label for="rule-sentiment">Only when the coverage's sentiment is below (−1 hostile … 1 glowing)</label><input id="rule-sentiment" name="sentiment_below" type="number" min="-1" max="1" step="0.1" placeholder="e.g. -0.2"></details>
<label><input type="checkbox" name="on_escalation" checked> Also when an existing story becomes this serious</label>
<label><input type="checkbox" name="on_spike"> Also when a brand's mentions spike (an hour's mentions well above the usual, whatever their severity)</label>
<fieldset><legend><strong>Send to</strong></legend>
<label><input type="checkbox" name="email" checked> Email (to you, with a one-click unsubscribe link)</label>
<label for="rule-slack">Slack incoming webhook URL</label><input id="rule-slack" name="slack_url" type="url" placeholder="https://hooks.slack.com/services/…">
<label for="rule-teams">Microsoft Teams incoming webhook URL</label><input id="rule-teams" name="teams_url" type="url" placeholder="https://….webhook.office.com/…">
<label><input type="checkbox" name="webhooks"> Your team's webhook endpoints (event alert.triggered)</label></fieldset>
<p><button type="submit">Add rule</button></p></form>
<div class="grid">
<section class="card" aria-labelledby="quiet-h"><h2 id="quiet-h">Quiet hours</h2>
<p class="small muted">Alerts that come up meanwhile wait until they end (your time zone: ${zone}).</p>
<form method="post" action="/app/alerts/quiet" class="row">${csrfField(v.csrf)}
<div><label for="quiet-start">From</label><input id="quiet-start" name="start" type="time" value="${settings.quiet_start ?? ''}"></div>
<div><label for="quiet-end">to</label><input id="quiet-end" name="end" type="time" value="${settings.quiet_end ?? ''}"></div>
<button type="submit" class="secondary">Save</button></form></section>
<section class="card" aria-labelledby="digest-h"><h2 id="digest-h">Digest email</h2>
<p class="small muted">The period's stories by brand and severity, against the period before, and your open phases; none when there is nothing.${settings.digest_next_at ? html` Next: ${when(settings.digest_next_at)}.` : ''}</p>
<form method="post" action="/app/alerts/digest" class="row">${csrfField(v.csrf)}
<div><label for="digest">Send</label><select id="digest" name="digest">${(
        ['off', 'daily', 'weekly'] as const
      ).map(
        (d) =>
          html`<option value="${d}"${d === settings.digest ? html` selected` : ''}>${d === 'off' ? 'never' : d === 'weekly' ? 'weekly, on Mondays' : 'daily'}</option>`,
      )}</select></div>
<div><label for="digest-hour">at</label><select id="digest-hour" name="hour">${hours(settings.digest_hour)}</select></div>
<button type="submit" class="secondary">Save</button></form></section>
</div>
<h2>Alerts sent</h2>
<div class="table-wrap"><table><thead><tr><th scope="col">When</th><th scope="col">Story</th><th scope="col">Rule</th><th scope="col">Channels</th></tr></thead><tbody>
${alerts.map(
  (a) =>
    html`<tr><td data-label="When" class="small">${when(a.created_at)}${a.status === 'held' ? html`<div class="small muted">held until ${when(a.due_at)}</div>` : ''}</td>
<td data-label="Story">${a.trigger === 'spike' ? html`<span class="badge">spike</span>` : sevBadge(a.severity)} <a href="${new URL(a.link).pathname}${new URL(a.link).search}">${a.headline}</a><div class="small muted">${a.host}, ${a.trigger === 'created' ? 'new' : a.trigger === 'escalated' ? 'escalated' : 'mentions spike'}</div></td>
<td data-label="Rule" class="small">${a.rule ?? html`<span class="muted">deleted</span>`}</td>
<td data-label="Channels" class="small">${a.channels.map(
      (c) =>
        html`<div>${CHANNEL_LABEL[c.channel]}: ${c.status === 'sent' ? 'sent' : c.status === 'failed' ? html`<strong>failed</strong> (${c.error ?? ''})` : c.status === 'cancelled' ? `not sent (${c.error ?? ''})` : a.status === 'held' ? 'waiting for quiet hours to end' : 'sending'}</div>`,
    )}${a.status === 'failed' ? html`<div><span class="badge sev-high">gave up</span></div>` : ''}</td></tr>`,
)}${alerts.length === 0 ? html`<tr><td colspan="4" class="muted">No alert yet.</td></tr>` : ''}</tbody></table></div>`,
    );
  }

  const failed = async (e: unknown, reply: FastifyReply, v: View) => {
    const { status, text } = pageError(e, reply.log);
    return reply.code(status).send(await alertsPage(v, { error: text }));
  };

  routes.get('/app/alerts', async (req, _reply, v) => alertsPage(v, { done: req.query.done }));
  routes.post('/app/alerts/rules', async (req, reply, v) => {
    try {
      const sentiment = formField(req, 'sentiment_below').trim();
      await run(app, v, createAlertRuleOp, {
        name: formField(req, 'name'),
        brands: formFields(req, 'brands'),
        min_severity: formField(req, 'min_severity'),
        topics: formFields(req, 'topics'),
        ...(sentiment && { sentiment_below: sentiment }),
        on_escalation: formField(req, 'on_escalation') === 'on',
        on_spike: formField(req, 'on_spike') === 'on',
        email: formField(req, 'email') === 'on',
        ...(formField(req, 'slack_url').trim() && { slack_url: formField(req, 'slack_url') }),
        ...(formField(req, 'teams_url').trim() && { teams_url: formField(req, 'teams_url') }),
        webhooks: formField(req, 'webhooks') === 'on',
      });
      return reply.redirect('/app/alerts?done=rule-added', 303);
    } catch (e) {
      return failed(e, reply, v);
    }
  });
  const ruleActions: Record<string, [Operation, string]> = {
    pause: [pauseAlertRule, 'rule-paused'],
    resume: [resumeAlertRule, 'rule-resumed'],
    delete: [deleteAlertRuleOp, 'rule-deleted'],
  };
  routes.post('/app/alerts/rules/:id/:action', async (req, reply, v) => {
    const action = Object.hasOwn(ruleActions, req.params.action ?? '')
      ? ruleActions[req.params.action!]
      : undefined;
    if (!action) return reply.code(404).send(appPage(v, 'Not found', html`<h1>Not found</h1>`));
    try {
      await run(app, v, action[0], { id: req.params.id ?? '' });
      return reply.redirect(`/app/alerts?done=${action[1]}`, 303);
    } catch (e) {
      return failed(e, reply, v);
    }
  });
  routes.post('/app/alerts/quiet', async (req, reply, v) => {
    try {
      await run(app, v, setQuietHours, {
        start: formField(req, 'start'),
        end: formField(req, 'end'),
      });
      return reply.redirect('/app/alerts?done=quiet', 303);
    } catch (e) {
      return failed(e, reply, v);
    }
  });
  routes.post('/app/alerts/digest', async (req, reply, v) => {
    try {
      await run(app, v, setDigestOp, {
        digest: formField(req, 'digest'),
        hour: formField(req, 'hour'),
      });
      return reply.redirect('/app/alerts?done=digest', 303);
    } catch (e) {
      return failed(e, reply, v);
    }
  });
}

/**
 * The unsubscribe link of alert and digest emails, signed, no sign-in needed. Opening it
 * asks (link checkers open links); the button, or a mail client's one-click POST
 * (RFC 8058), turns the emails off.
 */
export function mountUnsubscribe(pages: FastifyInstance, app: AppContext) {
  pages.register(async (scope) => mountUnsubscribeRoutes(scope, app));
}

function mountUnsubscribeRoutes(pages: FastifyInstance, app: AppContext) {
  // RFC 8058 asks mail clients to POST multipart/form-data; the link alone is what counts,
  // so such a body is read (up to the forms' 16 KiB) and set aside.
  pages.addContentTypeParser(
    'multipart/form-data',
    { parseAs: 'buffer', bodyLimit: 16 * 1024 },
    (_req, _body, done) => done(null, {}),
  );
  // A body the service will not read is refused as the API refuses it (413 or 400 with
  // {"error"}): the caller is a mail client, not a person. Anything else is a page.
  const pageErrors = pages.errorHandler;
  pages.setErrorHandler(async (err, req, reply) => {
    if (!(err as { code?: string }).code?.startsWith('FST_ERR_CTP_')) {
      return pageErrors.call(pages, err, req, reply);
    }
    const r = restError(err, req.log);
    return reply.code(r.status).headers(r.headers).type('application/json').send(r.body);
  });
  const whatOf = async (token: unknown) =>
    typeof token === 'string' && token.length < 1000 ? verifyLink(app, 'unsubscribe', token) : null;
  const gone = () =>
    publicPage(
      'Link expired',
      html`<h1>This link no longer works</h1><p>Sign in and change your alerts and digest under <a href="/app/alerts">Alerts</a>.</p>`,
    );
  pages.get('/unsubscribe', async (req, reply) => {
    const token = (req.query as Record<string, string>).t;
    const what = await whatOf(token);
    if (!what) return reply.code(404).type('text/html').send(gone());
    const subject =
      typeof what.digest === 'string' ? 'the digest email' : 'the emails of this alert rule';
    return reply
      .type('text/html')
      .send(
        publicPage(
          'Unsubscribe',
          html`<h1>Stop ${subject}?</h1><form method="post" action="/unsubscribe?t=${token}" class="card"><p>One click and they stop. You can turn them on again under Alerts in the portal.</p><p><button type="submit">Unsubscribe</button></p></form>`,
        ),
      );
  });
  pages.post('/unsubscribe', async (req, reply) => {
    const what = await whatOf((req.query as Record<string, string>).t);
    const done = what && (await unsubscribe(app.db, what, app.clock.now().toISOString()));
    if (!done) return reply.code(404).type('text/html').send(gone());
    return reply
      .type('text/html')
      .send(
        publicPage(
          'Unsubscribed',
          html`<h1>Unsubscribed</h1><p>${done === 'digest' ? 'No more digest emails.' : 'No more emails from that alert rule; its other channels carry on.'} Change this any time under <a href="/app/alerts">Alerts</a>.</p>`,
        ),
      );
  });
}
