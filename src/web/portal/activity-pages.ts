import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { listActivity } from '../../operations/portal/activity.js';
import { html } from '../html.js';
import { type Output, portalRoutes, run, type View } from './guard.js';
import { appPage } from './layout.js';

export type Entry = Output<typeof listActivity>['entries'][number];

/** A table of audit entries: when, who, what, on which story. */
export function activityTable(entries: Entry[]) {
  if (entries.length === 0) return html`<p class="card muted">Nothing yet.</p>`;
  return html`<table><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Story</th></tr></thead><tbody>${entries.map(
    (
      e,
    ) => html`<tr><td class="small">${e.created_at.slice(0, 19).replace('T', ' ')}</td><td class="small">${e.actor}</td><td>${e.action}</td>
<td>${e.event_uri && e.host ? html`<a href="/app/stories/${e.host}/${e.event_uri}">${e.title ?? e.event_uri}</a>` : (e.host ?? '')}</td></tr>`,
  )}</tbody></table>`;
}

/** The account's audit trail. */
export function mountActivityPages(fastify: FastifyInstance, app: AppContext) {
  const routes = portalRoutes(fastify, app, 'activity');
  routes.get('/app/activity', async (_req, _reply, v: View) => {
    const { entries } = await run(app, v, listActivity, {});
    return appPage(
      v,
      'Activity',
      html`<h1>Activity</h1><p class="muted">The last 100 changes in ${v.session.account.name}, newest first.</p>${activityTable(entries)}`,
    );
  });
}
