import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { pageError } from '../../errors.js';
import {
  addWebhook,
  deleteWebhook,
  listWebhooks,
  pauseWebhook,
  resumeWebhook,
  retryDelivery,
  rotateWebhookSecret,
} from '../../operations/portal/webhooks.js';
import { hasRole } from '../../policy.js';
import { EVENT_TYPES } from '../../webhooks/events.js';
import { formField, formFields } from '../forms.js';
import { type Html, html } from '../html.js';
import { confirmationPage } from './confirm.js';
import { portalRoutes, run, type View } from './guard.js';
import { appPage, csrfField, notice, problem, when } from './layout.js';
import { actorOf } from './session.js';

const secretCard = (title: string, secret: string) =>
  html`<div class="card" role="status"><h2>${title}</h2><p>Copy the signing secret now: it is shown only once.</p><code class="secret">${secret}</code></div>`;

/** Why an attempt failed, as a person reads it; the library's own words stay one click away. */
export function attemptProblem(error: string): string {
  const known: [RegExp, string][] = [
    [/ECONNREFUSED/, 'the receiver refused the connection'],
    [/ENOTFOUND|EAI_AGAIN/, 'its host name does not resolve'],
    [/ETIMEDOUT|timed? ?out|aborted|no answer within/i, 'no answer in time'],
    [/ECONNRESET|socket hang up|EPIPE/i, 'the connection was cut'],
    [/certificate|SSL|TLS|handshake/i, 'its TLS certificate could not be verified'],
    [/not a public|private|loopback|public host/i, 'its address is not a public host'],
    [/bad port/i, 'its port is one of those fetch refuses (a well-known service port)'],
  ];
  return known.find(([re]) => re.test(error))?.[1] ?? 'the request failed';
}

/** An attempt's outcome in words: the HTTP status, or why there was none. */
const attemptText = (a: { status_code: number | null; error: string | null }) =>
  a.status_code !== null
    ? `HTTP ${a.status_code}`
    : a.error
      ? html`${attemptProblem(a.error)} <details class="small"><summary>details</summary><code>${a.error}</code></details>`
      : '';

/** Webhooks: endpoints and their event types, the signing secret, the delivery log. */
export function mountWebhookPages(fastify: FastifyInstance, app: AppContext) {
  const routes = portalRoutes(fastify, app, 'webhooks');

  async function webhooksPage(v: View, extra: { done?: string; error?: string; secret?: Html }) {
    if (!hasRole(actorOf(v.session), 'admin')) {
      return appPage(
        v,
        'Webhooks',
        html`<h1>Webhooks</h1><p class="card">Only owners and admins manage webhooks.</p>`,
      );
    }
    const { endpoints, deliveries } = await run(app, v, listWebhooks, {});
    const urlOf = new Map(endpoints.map((e) => [e.id, e.url]));
    const endpointForm = (
      action: string,
      e: { id: string; url: string },
      label: string,
      cls = 'secondary',
    ) =>
      html`<form class="inline" method="post" action="/app/webhooks/${action}">${csrfField(v.csrf)}<input type="hidden" name="id" value="${e.id}"><button type="submit" class="${cls}">${label}<span class="visually-hidden"> (${e.url})</span></button></form>`;
    return appPage(
      v,
      'Webhooks',
      html`<h1>Webhooks</h1>${notice(extra.done)}${problem(extra.error)}${extra.secret ?? ''}
<p class="muted">Signed with Standard Webhooks; see the API guide for verifying them.</p>
<div class="table-wrap"><table><thead><tr><th scope="col">Endpoint</th><th scope="col">Events</th><th scope="col">State</th><th scope="col"></th></tr></thead><tbody>
${endpoints.map(
  (
    e,
  ) => html`<tr><td class="small wrap">${e.url}</td><td class="small">${e.events.join(', ')}</td><td>${e.disabled_at ? html`<span class="badge sev-high">paused</span> <span class="small muted">since ${when(e.disabled_at)}</span>` : 'active'}</td>
<td>${endpointForm('rotate', e, 'Rotate secret')} ${e.disabled_at ? endpointForm('resume', e, 'Resume') : endpointForm('pause', e, 'Pause')} ${endpointForm('delete', e, 'Delete', 'danger')}</td></tr>`,
)}${endpoints.length === 0 ? html`<tr><td colspan="4" class="muted">No endpoints yet.</td></tr>` : ''}</tbody></table></div>
<h2>Add an endpoint</h2>
<form method="post" action="/app/webhooks" class="card">${csrfField(v.csrf)}
<label for="hook-url">HTTPS URL</label><input id="hook-url" name="url" type="url" required placeholder="https://hooks.example.com/stories">
<fieldset><legend><strong>Events</strong></legend>${EVENT_TYPES.map(
        (t) => html`<label><input type="checkbox" name="events" value="${t}"> ${t}</label>`,
      )}</fieldset>
<p><button type="submit">Add endpoint</button></p></form>
<h2>Deliveries</h2>
<div class="table-wrap"><table><thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Endpoint</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col"></th></tr></thead><tbody>
${deliveries.map(
  (
    d,
  ) => html`<tr><td class="small">${when(d.created_at)}</td><td>${d.event_type}</td><td class="small wrap">${urlOf.get(d.endpoint_id) ?? ''}</td>
<td>${d.status}</td>
<td class="small">${d.attempt_log.map((a) => html`<div>#${a.attempt} ${when(a.at)}: ${attemptText(a)} (${a.duration_ms} ms)</div>`)}</td>
<td>${d.status === 'failed' ? html`<form class="inline" method="post" action="/app/webhooks/retry">${csrfField(v.csrf)}<input type="hidden" name="id" value="${d.id}"><button type="submit" class="secondary">Retry</button></form>` : ''}</td></tr>`,
)}${deliveries.length === 0 ? html`<tr><td colspan="6" class="muted">No deliveries yet.</td></tr>` : ''}</tbody></table></div>`,
    );
  }

  routes.get('/app/webhooks', async (req, _reply, v) => webhooksPage(v, { done: req.query.done }));
  routes.post('/app/webhooks', async (req, reply, v) => {
    try {
      const r = await run(app, v, addWebhook, {
        url: formField(req, 'url'),
        events: formFields(req, 'events'),
      });
      return webhooksPage(v, { secret: secretCard('Endpoint added', r.secret) });
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(await webhooksPage(v, { error: text }));
    }
  });
  routes.post('/app/webhooks/rotate', async (req, reply, v) => {
    try {
      const r = await run(app, v, rotateWebhookSecret, { id: formField(req, 'id') });
      return webhooksPage(v, {
        secret: secretCard('New secret (the old one signs for 24 more hours)', r.secret),
      });
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(await webhooksPage(v, { error: text }));
    }
  });
  for (const [action, op, done] of [
    ['pause', pauseWebhook, 'webhook-paused'],
    ['resume', resumeWebhook, 'webhook-resumed'],
  ] as const) {
    routes.post(`/app/webhooks/${action}`, async (req, reply, v) => {
      try {
        await run(app, v, op, { id: formField(req, 'id') });
        return reply.redirect(`/app/webhooks?done=${done}`, 303);
      } catch (e) {
        const { status, text } = pageError(e, reply.log);
        return reply.code(status).send(await webhooksPage(v, { error: text }));
      }
    });
  }
  routes.post('/app/webhooks/delete', async (req, reply, v) => {
    const asked = confirmationPage(req, v, deleteWebhook, ['id'], {
      title: 'Delete this webhook endpoint?',
      consequence: html`Nothing more is sent to it, what is waiting is dropped, and its delivery log is deleted. Its secret stops signing. To stop for a while and keep the log, pause it instead.`,
      confirm: 'Delete the endpoint',
      back: '/app/webhooks',
    });
    if (asked) return asked;
    try {
      await run(app, v, deleteWebhook, { id: formField(req, 'id') });
      return reply.redirect('/app/webhooks?done=webhook-deleted', 303);
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(await webhooksPage(v, { error: text }));
    }
  });
  routes.post('/app/webhooks/retry', async (req, reply, v) => {
    try {
      await run(app, v, retryDelivery, { id: formField(req, 'id') });
      return reply.redirect('/app/webhooks?done=retried', 303);
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(await webhooksPage(v, { error: text }));
    }
  });
}
