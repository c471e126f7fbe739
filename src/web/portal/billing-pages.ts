import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { billingOverview } from '../../operations/portal/billing.js';
import { hasRole } from '../../policy.js';
import { html } from '../html.js';
import { portalRoutes, run, type View } from './guard.js';
import { appPage, when } from './layout.js';
import { actorOf } from './session.js';

const KIND: Record<string, string> = {
  included: 'included unit',
  metered: 'unit on the subscription',
  purchase: 'unit bought at checkout',
};
const eur = (cents: number) => `${(cents / 100).toFixed(2)} EUR`;

/** Billing: plan, included units left per brand this month, and the ledger. */
export function mountBillingPages(fastify: FastifyInstance, app: AppContext) {
  const routes = portalRoutes(fastify, app, 'billing');
  routes.get('/app/billing', async (_req, _reply, v: View) => {
    if (!hasRole(actorOf(v.session), 'admin')) {
      return appPage(
        v,
        'Billing',
        html`<h1>Billing</h1><p class="card">Only owners and admins see billing.</p>`,
      );
    }
    const o = await run(app, v, billingOverview, {});
    return appPage(
      v,
      'Billing',
      html`<h1>Billing</h1>
<div class="card"><dl class="facts"><dt>Plan</dt><dd>${o.plan}</dd>
<dt>Subscription</dt><dd>${o.subscription ? `${o.subscription.provider}, ${o.subscription.status}${o.plan === 'agency' ? `, ${o.subscription.client_brands} client brands billed` : ''}` : html`<span class="muted">none: beyond the included units, advisories are bought one at a time at checkout</span>`}</dd>
<dt>Beyond the included units</dt><dd>${eur(o.unit_price_cents)} per advisory, never charged without an unlock you asked for</dd></dl></div>
<h2>This month, per brand</h2>
<p class="muted small">Included units are the brand's plan's: a client brand's come from its own account, and whoever unlocks uses them first.</p>
<table><thead><tr><th scope="col">Brand</th><th scope="col">Included left</th><th scope="col">Used by you</th><th scope="col">Paid</th><th scope="col">Cost</th></tr></thead><tbody>
${o.units.map(
  (u) =>
    html`<tr><td>${u.name} <span class="muted small">${u.brand}</span>${u.relation === 'client' ? html` <span class="badge">client</span>` : ''}</td><td>${u.left} of ${u.included}</td><td>${u.used_included}</td><td>${u.used_paid}</td><td>${eur(u.cents)}</td></tr>`,
)}
${o.units.length === 0 ? html`<tr><td colspan="5" class="muted">No brands yet.</td></tr>` : ''}</tbody></table>
<h2>Usage and purchases</h2>
<table><thead><tr><th scope="col">When</th><th scope="col">Brand</th><th scope="col">Story</th><th scope="col">What</th><th scope="col">Amount</th></tr></thead><tbody>
${o.ledger.map(
  (l) =>
    html`<tr><td class="small">${when(l.created_at)}</td><td>${l.host ?? html`<span class="muted">a deleted brand</span>`}</td><td>${l.title ?? ''}</td><td>${KIND[l.kind] ?? l.kind}</td><td>${l.amount_cents ? eur(l.amount_cents) : 'included'}</td></tr>`,
)}${o.ledger.length === 0 ? html`<tr><td colspan="5" class="muted">Nothing yet this account.</td></tr>` : ''}</tbody></table>`,
    );
  });
}
