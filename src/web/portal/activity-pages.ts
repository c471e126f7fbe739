import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { listActivity } from '../../operations/portal/activity.js';
import { html } from '../html.js';
import { activitySentence } from './activity-text.js';
import { type Output, portalRoutes, run, type View } from './guard.js';
import { appPage, when } from './layout.js';
import { storyPath } from './paths.js';

export type Entry = Output<typeof listActivity>['entries'][number];

/** A table of audit entries: when, what (a sentence naming who), on which story. */
export function activityTable(entries: Entry[]) {
  if (entries.length === 0) return html`<p class="card muted">Nothing yet.</p>`;
  return html`<table><thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Story</th></tr></thead><tbody>${entries.map(
    (
      e,
    ) => html`<tr><td class="small">${when(e.created_at)}</td><td>${activitySentence(e.actor_name, e.action, e.details)}</td>
<td>${e.event_uri && e.host ? html`<a href="${storyPath(e.host, e.event_uri)}">${e.title ?? e.event_uri}</a>` : (e.host ?? '')}</td></tr>`,
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
