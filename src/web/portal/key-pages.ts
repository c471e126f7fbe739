import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { pageError } from '../../errors.js';
import { listBrands } from '../../operations/brands/list-brands.js';
import { mayRun } from '../../operations/execute.js';
import {
  createApiKeyInApp,
  listApiKeys,
  revokeApiKeyInApp,
} from '../../operations/portal/api-keys.js';
import { hasRole } from '../../policy.js';
import { formField, formFields } from '../forms.js';
import { type Html, html } from '../html.js';
import { confirmationPage } from './confirm.js';
import { portalRoutes, run, type View } from './guard.js';
import { appPage, csrfField, notice, problem } from './layout.js';
import { actorOf } from './session.js';

/** API keys: owners and admins create (the secret shown once), see and revoke them. */
export function mountKeyPages(fastify: FastifyInstance, app: AppContext) {
  const routes = portalRoutes(fastify, app, 'keys');

  async function keysPage(v: View, extra: { done?: string; error?: string; secret?: Html }) {
    const actor = actorOf(v.session);
    if (!hasRole(actor, 'admin')) {
      return appPage(
        v,
        'API keys',
        html`<h1>API keys</h1><p class="card">Only owners and admins manage API keys. Ask one of them for a key.</p>`,
      );
    }
    const { keys } = await run(app, v, listApiKeys, {});
    const { brands } = await run(app, v, listBrands, {});
    const roles = ['member', 'admin', 'owner'].filter((r) => hasRole(actor, r as never));
    const mayCreate = mayRun(actor, createApiKeyInApp);
    return appPage(
      v,
      'API keys',
      html`<h1>API keys</h1>${notice(extra.done)}${problem(extra.error)}${extra.secret ?? ''}
${mayCreate ? '' : html`<p class="notice">Your plan (${v.session.account.plan}) has no API access: API keys come with the partner and agency plans, and none can be made before.</p>`}
<table><thead><tr><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Scope</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"></th></tr></thead><tbody>
${keys.map(
  (
    k,
  ) => html`<tr><td>${k.name}</td><td>${k.role}</td><td>${k.scope ? k.scope.join(', ') : 'all brands'}</td>
<td class="small">${k.created_at.slice(0, 10)}</td><td class="small">${k.last_used_at ? k.last_used_at.slice(0, 16).replace('T', ' ') : 'never'}</td>
<td>${
    k.revoked_at
      ? html`<span class="muted">revoked ${k.revoked_at.slice(0, 10)}</span>`
      : html`<form class="inline" method="post" action="/app/keys/revoke">${csrfField(v.csrf)}<input type="hidden" name="id" value="${k.id}"><input type="hidden" name="name" value="${k.name}"><button type="submit" class="danger" aria-label="Revoke ${k.name}">Revoke</button></form>`
  }</td></tr>`,
)}${keys.length === 0 ? html`<tr><td colspan="6" class="muted">No keys yet.</td></tr>` : ''}</tbody></table>
${
  mayCreate
    ? html`<h2>Create a key</h2>
<form method="post" action="/app/keys" class="card">${csrfField(v.csrf)}
<label for="key-name">Name</label><input id="key-name" name="name" type="text" required maxlength="80" placeholder="CRM integration">
<label for="key-role">Role</label><select id="key-role" name="role">${roles.map((r) => html`<option value="${r}">${r}</option>`)}</select>
<fieldset><legend><strong>Scope</strong></legend>
<label><input type="radio" name="scope" value="full" checked> All brands</label>
<label><input type="radio" name="scope" value="some"> Only these brands:</label>
${brands.map((b) => html`<label><input type="checkbox" name="brand" value="${b.brand}"> ${b.name} (${b.brand})</label>`)}
</fieldset>
<p><button type="submit">Create the key</button></p></form>`
    : ''
}`,
    );
  }

  routes.get('/app/keys', async (req, _reply, v) => keysPage(v, { done: req.query.done }));

  routes.post('/app/keys', async (req, reply, v) => {
    try {
      const key = await run(app, v, createApiKeyInApp, {
        name: formField(req, 'name'),
        role: formField(req, 'role'),
        scope: formField(req, 'scope') === 'some' ? formFields(req, 'brand') : 'full',
      });
      // Shown on this answer only: it is not kept anywhere it could be shown again.
      return keysPage(v, {
        secret: html`<div class="card" role="status"><h2>Your new key</h2><p>Copy it now: it is shown only once.</p><code class="secret">${key.key}</code></div>`,
      });
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(await keysPage(v, { error: text }));
    }
  });

  routes.post('/app/keys/revoke', async (req, reply, v) => {
    const ask = confirmationPage(req, v, revokeApiKeyInApp, ['id', 'name'], {
      title: `Revoke the key “${formField(req, 'name')}”?`,
      consequence: html`Every request made with it is refused from the next one on (401), over REST and MCP alike. Whatever uses it stops working; a revoked key cannot be restored (make a new one instead).`,
      confirm: 'Revoke the key',
      back: '/app/keys',
    });
    if (ask) return ask;
    try {
      await run(app, v, revokeApiKeyInApp, { id: formField(req, 'id') });
      return reply.redirect('/app/keys?done=key-revoked', 303);
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(await keysPage(v, { error: text }));
    }
  });
}
