import type { FastifyInstance } from 'fastify';
import { StripeBilling } from '../billing/stripe-billing.js';
import type { AppContext } from '../context.js';
import { checkoutSummary, completeCheckout, expireCheckout } from '../domain/unlock.js';
import { html, PAGE_HEADERS, page } from '../web/html.js';

/**
 * The one-off purchase of an advisory unlock. With the built-in ledger, the checkout URL
 * is a page of this service that states the price and unlocks only when the buyer
 * presses "Confirm purchase" (the URL holds a 130-bit id, so it is the capability). With
 * Stripe, the buyer pays on Stripe's page and the signed webhook completes the checkout.
 */
export function mountBilling(fastify: FastifyInstance, app: AppContext) {
  fastify.get<{ Params: { id: string } }>('/billing/checkout/:id', async (req, reply) => {
    const c = await checkoutSummary(app, req.params.id);
    reply.headers(PAGE_HEADERS);
    if (!c) return reply.code(404).send(page('Not found', html`<h1>Checkout not found</h1>`));
    const price = `${(c.amount_cents / 100).toFixed(2)} EUR`;
    const facts = html`<dl><dt>Brand</dt><dd>${c.host}</dd><dt>Story</dt><dd>${c.title}</dd>
<dt>Price</dt><dd>${price}, one-off</dd></dl>`;
    const closed: Record<string, [string, string]> = {
      completed: [
        'Purchase confirmed',
        'The full advisory is unlocked. The purchase is on your next invoice.',
      ],
      canceled: [
        'Already unlocked',
        'The advisory was unlocked another way before this purchase: nothing was charged.',
      ],
      refund_due: [
        'Already unlocked',
        'The advisory was unlocked another way while you paid: the payment will be refunded.',
      ],
      expired: [
        'Checkout expired',
        'Nothing was charged. Unlock the advisory again to start a new purchase.',
      ],
    };
    const done = closed[c.status];
    if (done)
      return page(
        done[0],
        html`<h1>${done[0]}</h1><div class="card">${facts}<p>${done[1]}</p></div>`,
      );
    const confirm =
      app.billing.provider === 'ledger'
        ? html`<form method="post" action="/billing/checkout/${c.id}">
<button type="submit">Confirm purchase: ${price}</button></form>`
        : html`<p class="muted">Waiting for the payment to be confirmed by Stripe. Reload this page in a moment.</p>`;
    return page(
      'Confirm purchase',
      html`<h1>Unlock the full advisory</h1><div class="card">${facts}
<p>Nothing has been charged yet. Confirming buys one advisory unlock for this story.</p>${confirm}</div>`,
    );
  });

  if (app.billing.provider === 'ledger') {
    fastify.register(async (scope) => {
      // The confirm form posts no fields; accept the browser's form encoding.
      scope.addContentTypeParser(
        'application/x-www-form-urlencoded',
        { parseAs: 'string' },
        (_req, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
      );
      scope.post<{ Params: { id: string } }>('/billing/checkout/:id', async (req, reply) => {
        const c = await checkoutSummary(app, req.params.id);
        if (!c) {
          return reply
            .code(404)
            .headers(PAGE_HEADERS)
            .send(page('Not found', html`<h1>Checkout not found</h1>`));
        }
        await completeCheckout(app, c.id, `checkout:${c.id}`, { paidAtProvider: false });
        return reply.code(303).header('location', `/billing/checkout/${c.id}`).send();
      });
    });
  }

  const billing = app.billing;
  if (billing instanceof StripeBilling) {
    fastify.register(async (scope) => {
      // The signature is over the exact bytes Stripe sent: keep them.
      scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) =>
        done(null, body),
      );
      scope.post('/billing/stripe/webhook', async (req, reply) => {
        const signature = req.headers['stripe-signature'];
        let event: ReturnType<StripeBilling['verifyEvent']>;
        try {
          if (typeof signature !== 'string' || !Buffer.isBuffer(req.body)) throw new Error();
          event = billing.verifyEvent(req.body, signature);
        } catch {
          return reply.code(400).send({ error: 'stripe-signature: does not verify' });
        }
        const session = event.data.object as {
          id: string;
          metadata?: Record<string, string> | null;
          client_reference_id?: string | null;
          payment_status?: string;
        };
        const id = session.metadata?.checkout_id ?? session.client_reference_id;
        if (id) {
          const paid =
            (event.type === 'checkout.session.completed' && session.payment_status === 'paid') ||
            event.type === 'checkout.session.async_payment_succeeded';
          if (paid)
            await completeCheckout(app, id, `stripe:${session.id}`, { paidAtProvider: true });
          if (event.type === 'checkout.session.expired') await expireCheckout(app, id);
        }
        // Every verified event is acknowledged, handled or not, so Stripe stops resending.
        return { received: true };
      });
    });
  }
}
