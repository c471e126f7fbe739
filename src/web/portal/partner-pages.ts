import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import type { BrandKit } from '../../domain/brand-kit.js';
import { pageError } from '../../errors.js';
import { createDelegationInvite } from '../../operations/delegations/create-delegation-invite.js';
import { dropDelegation } from '../../operations/delegations/drop-delegation.js';
import { listDelegations } from '../../operations/delegations/list-delegations.js';
import { mayRun } from '../../operations/execute.js';
import type { Operation } from '../../operations/operation.js';
import { getBrandKit, mayEditBrandKit, saveBrandKit } from '../../operations/portal/brand-kit.js';
import {
  inviteLink,
  listInvites,
  listPartners,
  revokeInviteInApp,
  revokePartner,
} from '../../operations/portal/partners.js';
import { hasRole } from '../../policy.js';
import { formField } from '../forms.js';
import { type Html, html } from '../html.js';
import { brandKitForm } from './brand-kit-form.js';
import { type Confirmation, confirmationPage } from './confirm.js';
import { type Output, portalRoutes, run, type View } from './guard.js';
import { appPage, csrfField, notice, problem } from './layout.js';
import { actorOf } from './session.js';

/**
 * Partners and clients. An agency sees its client brands (drop one; invite a client);
 * a client sees the partners acting on its brands and can revoke them.
 */
export function mountPartnerPages(fastify: FastifyInstance, app: AppContext) {
  const routes = portalRoutes(fastify, app, 'partners');

  async function partnersPage(
    v: View,
    extra: { done?: string; error?: string; invite?: Html; kit?: BrandKit },
  ) {
    const admin = hasRole(actorOf(v.session), 'admin');
    const { delegations } = await run(app, v, listDelegations, {});
    const { partners } = await run(app, v, listPartners, {});
    const { invites } = await run(app, v, listInvites, {});
    // A pending invitation's link, shown again to who may send invitations.
    const links = new Map<string, string>();
    if (mayRun(actorOf(v.session), inviteLink)) {
      for (const i of invites.filter((i) => i.status === 'pending')) {
        links.set(i.id, (await run(app, v, inviteLink, { id: i.id })).onboarding_url);
      }
    }
    // The brand kit: as typed when saving it failed, else as stored.
    const kit = mayEditBrandKit(actorOf(v.session))
      ? (extra.kit ?? (await run(app, v, getBrandKit, {})).brand_kit)
      : null;
    const form = (action: string, fields: Record<string, string>, label: string, cls: string) =>
      html`<form class="inline" method="post" action="${action}">${csrfField(v.csrf)}${Object.entries(
        fields,
      ).map(
        ([k, val]) => html`<input type="hidden" name="${k}" value="${val}">`,
      )}<button type="submit" class="${cls}">${label}</button></form>`;
    return appPage(
      v,
      'Partners and clients',
      html`<h1>Partners and clients</h1>${notice(extra.done)}${problem(extra.error)}${extra.invite ?? ''}
<h2>Partners acting on your brands</h2>
${
  partners.length === 0
    ? html`<p class="card muted">No partner acts on your brands.</p>`
    : html`<table><thead><tr><th scope="col">Brand</th><th scope="col">Partner</th><th scope="col">Status</th><th scope="col">Since</th><th scope="col"></th></tr></thead><tbody>${partners.map(
        (
          p,
        ) => html`<tr><td>${p.brand}</td><td>${p.partner_name}</td><td>${p.status}</td><td class="small">${p.created_at.slice(0, 10)}</td>
<td>${admin && (p.status === 'active' || p.status === 'pending') ? form('/app/partners/revoke', { brand: p.brand, partner: p.partner, partner_name: p.partner_name }, `Revoke ${p.partner_name}`, 'danger') : ''}</td></tr>`,
      )}</tbody></table>`
}
<h2>Your client brands</h2>
${
  delegations.length === 0
    ? html`<p class="card muted">No client brands are delegated to you.</p>`
    : html`<table><thead><tr><th scope="col">Client brand</th><th scope="col">Status</th><th scope="col"></th></tr></thead><tbody>${delegations.map(
        (d) => html`<tr><td>${d.brand_key}</td><td>${d.status}</td>
<td>${admin && d.status === 'active' ? form('/app/partners/drop', { brand: d.brand_key }, `Drop ${d.brand_key}`, 'danger') : ''}</td></tr>`,
      )}</tbody></table>`
}
${
  invites.length
    ? html`<h2>Invitations</h2><table><thead><tr><th scope="col">Client brand</th><th scope="col">State</th><th scope="col">Sent</th><th scope="col">Expires</th><th scope="col"></th></tr></thead><tbody>${invites.map(
        (
          i,
        ) => html`<tr><td>${i.brand_host}${links.has(i.id) ? html`<details class="small"><summary>Its link, to send again</summary><code class="secret">${links.get(i.id)}</code></details>` : ''}</td><td>${i.status}</td><td class="small">${i.created_at.slice(0, 10)}</td><td class="small">${i.expires_at.slice(0, 10)}</td>
<td>${admin && i.status === 'pending' ? form('/app/partners/invites/revoke', { id: i.id, brand: i.brand_host }, `Revoke the invitation for ${i.brand_host}`, 'secondary') : ''}</td></tr>`,
      )}</tbody></table>`
    : ''
}
${
  mayRun(actorOf(v.session), createDelegationInvite)
    ? html`<h2>Invite a client</h2><form method="post" action="/app/partners/invite" class="card">${csrfField(v.csrf)}
<label for="invite-brand">Client brand host</label><input id="invite-brand" name="brand" type="text" required placeholder="client.com">
<label for="invite-return">Return URL <span class="muted small">(your product, https)</span></label><input id="invite-return" name="return_url" type="url" required placeholder="https://app.youragency.com/clients">
<p><button type="submit">Create the invitation link</button></p></form>`
    : ''
}
${kit ? brandKitForm(v.csrf, kit, v.session.account.name) : ''}`,
    );
  }

  routes.get('/app/partners', async (req, _reply, v) => partnersPage(v, { done: req.query.done }));

  /** A destructive action: asked first (confirm.ts), then run, then its outcome said. */
  const act = (
    path: string,
    op: Operation,
    /** The operation's input, then what the question shows (names), carried along. */
    [fields, shown]: [string[], string[]],
    ask: (f: (name: string) => string) => Confirmation,
    done: (result: never) => string,
  ) =>
    routes.post(path, async (req, reply, v) => {
      const f = (name: string) => formField(req, name);
      const page = confirmationPage(req, v, op, [...fields, ...shown], ask(f));
      if (page) return page;
      try {
        const result = await run(app, v, op, Object.fromEntries(fields.map((n) => [n, f(n)])));
        return reply.redirect(`/app/partners?done=${done(result as never)}`, 303);
      } catch (e) {
        const { status, text } = pageError(e, reply.log);
        return reply.code(status).send(await partnersPage(v, { error: text }));
      }
    });
  act(
    '/app/partners/revoke',
    revokePartner,
    [['brand', 'partner'], ['partner_name']],
    (f) => ({
      title: `Stop ${f('partner_name')} acting on ${f('brand')}?`,
      consequence: html`${f('partner_name')} loses access to ${f('brand')} at once: its keys, people and connected apps get “not found” for the brand from their next request, its webhooks for the brand stop, and the shares it made of the brand's stories stop serving (you can re-enable them). To work together again, it needs a new invitation.`,
      confirm: `Revoke ${f('partner_name')}`,
      back: '/app/partners',
    }),
    () => 'partner-revoked',
  );
  act(
    '/app/partners/drop',
    dropDelegation,
    [['brand'], []],
    (f) => ({
      title: `Drop the client brand ${f('brand')}?`,
      consequence: html`You stop acting on ${f('brand')} at once: your keys, people and connected apps get “not found” for it, your webhooks for it stop, and the shares you made of its stories stop serving. If no other partner manages the client's account, it goes back to the client with a 7-day trial of the partner plan. This cannot be undone; the client can invite you again.`,
      confirm: `Drop ${f('brand')}`,
      back: '/app/partners',
    }),
    (r: Output<typeof dropDelegation>) =>
      r.client_account === 'handed_back' ? 'client-dropped-handed-back' : 'client-dropped',
  );
  act(
    '/app/partners/invites/revoke',
    revokeInviteInApp,
    [['id'], ['brand']],
    (f) => ({
      title: `Revoke the invitation for ${f('brand')}?`,
      consequence: html`Its link stops working at once; whoever opens it is told it is no longer valid. You can make a new invitation later.`,
      confirm: 'Revoke the invitation',
      back: '/app/partners',
    }),
    () => 'invite-revoked',
  );

  routes.post('/app/partners/brand-kit', async (req, reply, v) => {
    const typed = {
      display_name: formField(req, 'display_name'),
      logo_url: formField(req, 'logo_url'),
      accent_color: formField(req, 'accent_color'),
    };
    try {
      await run(app, v, saveBrandKit, typed);
      return reply.redirect('/app/partners?done=brand-kit', 303);
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(await partnersPage(v, { error: text, kit: typed }));
    }
  });

  routes.post('/app/partners/invite', async (req, reply, v) => {
    try {
      const r = await run(app, v, createDelegationInvite, {
        brand: formField(req, 'brand'),
        return_url: formField(req, 'return_url'),
      });
      return partnersPage(v, {
        invite: html`<div class="card" role="status"><h2>Invitation ready</h2><p>Send this link to your client: they sign in or create their account, and grant the delegation.</p><code class="secret">${r.onboarding_url}</code></div>`,
      });
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(await partnersPage(v, { error: text }));
    }
  });
}
