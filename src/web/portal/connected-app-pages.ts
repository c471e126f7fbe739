import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { pageError } from '../../errors.js';
import { listConnectedApps, revokeConnectedApp } from '../../operations/portal/connected-apps.js';
import { formField } from '../forms.js';
import { html } from '../html.js';
import { confirmationPage } from './confirm.js';
import { portalRoutes, run, type View } from './guard.js';
import { appPage, csrfField, notice, problem, when } from './layout.js';

/**
 * Connected apps: the OAuth applications (Claude, Cursor, …) the signed-in person allowed
 * to act as them in this team, each with where it returns to, when it last called, and
 * a button that takes the access back.
 */
export function mountConnectedAppPages(fastify: FastifyInstance, app: AppContext) {
  const routes = portalRoutes(fastify, app, 'apps');

  async function appsPage(v: View, extra: { done?: string; error?: string }) {
    const { apps } = await run(app, v, listConnectedApps, {});
    return appPage(
      v,
      'Connected apps',
      html`<h1>Connected apps</h1>${notice(extra.done)}${problem(extra.error)}
<p class="muted">Applications you allowed to act as you in ${v.session.account.name}, with your permissions. They never spend money.</p>
<table><thead><tr><th scope="col">Application</th><th scope="col">Returns to</th><th scope="col">Allowed</th><th scope="col">Last used</th><th scope="col"></th></tr></thead><tbody>
${apps.map(
  (a) => html`<tr><td>${a.name}</td><td class="small">${a.redirect_host}</td>
<td class="small">${when(a.connected_at)}</td><td class="small">${a.last_used_at ? when(a.last_used_at) : 'never'}</td>
<td><form class="inline" method="post" action="/app/connected-apps/revoke">${csrfField(v.csrf)}<input type="hidden" name="client_id" value="${a.client_id}"><input type="hidden" name="name" value="${a.name}"><button type="submit" class="danger" aria-label="Revoke ${a.name}">Revoke</button></form></td></tr>`,
)}${apps.length === 0 ? html`<tr><td colspan="5" class="muted">No application is connected. Connect one from Claude, Cursor or another MCP client with ${app.config.baseUrl.replace(/\/+$/, '')}/mcp.</td></tr>` : ''}</tbody></table>`,
    );
  }

  routes.get('/app/connected-apps', async (req, _reply, v) =>
    appsPage(v, { done: req.query.done }),
  );

  routes.post('/app/connected-apps/revoke', async (req, reply, v) => {
    const ask = confirmationPage(req, v, revokeConnectedApp, ['client_id', 'name'], {
      title: `Take back access from “${formField(req, 'name')}”?`,
      consequence: html`It can no longer act as you from its next request: its tokens stop working at once. To use it again, connect it again from the application.`,
      confirm: 'Take back access',
      back: '/app/connected-apps',
    });
    if (ask) return ask;
    try {
      await run(app, v, revokeConnectedApp, { client_id: formField(req, 'client_id') });
      return reply.redirect('/app/connected-apps?done=app-revoked', 303);
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(await appsPage(v, { error: text }));
    }
  });
}
