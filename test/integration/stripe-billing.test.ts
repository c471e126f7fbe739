import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe } from '../../src/domain/billing-admin.js';
import { startService, type TestService } from '../support/harness.js';
import { type StripeDouble, startStripeDouble } from '../support/stripe-double.js';
import { seedWorld, type World } from '../support/world.js';

/** BILLING=stripe, against a local server speaking Stripe's API to the official client. */
const WEBHOOK_SECRET = 'whsec_test_double';
let stripe: StripeDouble;
let svc: TestService;
let w: World;
let n = 50;

beforeAll(async () => {
  stripe = await startStripeDouble();
  svc = await startService({
    BILLING: 'stripe',
    STRIPE_SECRET_KEY: 'sk_test_double',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_URL: stripe.url,
  });
  w = await seedWorld(svc.app);
  // This month's included unit of northwind.example is used up front.
  await svc.request('POST', '/v1/advisory', {
    key: w.keys.owner,
    body: { brand: 'northwind.example', event_uri: w.stories.northwind },
  });
});
afterAll(async () => {
  await svc.close();
  await stripe.close();
});

/** Whose brand a story is: Northwind (no subscription) unless a test has its own. */
type Who = { host: string; key: string };
const northwind = (): Who => ({ host: 'northwind.example', key: w.keys.owner });
const unlock = (event_uri: string, who = northwind()) =>
  svc.request('POST', '/v1/advisory', {
    key: who.key,
    body: { brand: who.host, event_uri },
  });
const locked = async (event_uri: string, who = northwind()) =>
  (
    await svc.request('GET', '/v1/story', {
      key: who.key,
      query: { brand: who.host, event_uri },
    })
  ).body.story.advisory.locked;

/**
 * A subscribed account of the test's own (its Stripe customer), its included unit of
 * this month used: its next unlock is metered whatever the other tests did.
 */
async function subscriber(customer: string) {
  const c = await w.customer();
  await subscribe(svc.app, c.accountId, 'test', customer);
  expect((await unlock(await c.story(n++), c)).body.counted).toBe(true);
  return c;
}
const ledgerOf = (event_uri: string) =>
  svc.app.db
    .selectFrom('billing_ledger as l')
    .innerJoin('stories as s', 's.id', 'l.story_id')
    .select(['l.kind', 'l.amount_cents', 'l.external_id'])
    .where('s.event_uri', '=', event_uri)
    .execute();

function webhook(event: object, secret = WEBHOOK_SECRET) {
  const payload = JSON.stringify(event);
  const header = Stripe.webhooks.generateTestHeaderString({ payload, secret });
  return fetch(`${svc.url}/billing/stripe/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': header },
    body: payload,
  });
}

describe('Stripe adapter', () => {
  it('offers a Stripe Checkout Session when there is no subscription; the signed webhook unlocks once', async () => {
    const e = await w.story('northwind.example', n++);
    const r = await unlock(e);
    expect(r.body).toMatchObject({ ok: false, counted: false, billed_eur: 0 });
    expect(r.body.checkout_url).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_\d+$/);
    const session = stripe.sessions.at(-1)!;
    expect(session).toMatchObject({
      mode: 'payment',
      'line_items[0][price_data][currency]': 'eur',
      'line_items[0][price_data][unit_amount]': '1500',
      'line_items[0][quantity]': '1',
    });
    expect(session.idempotency_key).toBe(`checkout-${session.client_reference_id}`);
    expect(await locked(e)).toBe(true);

    const event = {
      id: 'evt_test_1',
      object: 'event',
      type: 'checkout.session.completed',
      data: {
        object: {
          id: session.id,
          object: 'checkout.session',
          client_reference_id: session.client_reference_id,
          metadata: { checkout_id: session['metadata[checkout_id]'] },
          payment_status: 'paid',
        },
      },
    };
    // A forged event changes nothing.
    const forged = await webhook(event, 'whsec_wrong');
    expect(forged.status).toBe(400);
    expect(await locked(e)).toBe(true);

    // Stripe delivers at least once: the same event twice unlocks and records once.
    expect((await webhook(event)).status).toBe(200);
    expect((await webhook(event)).status).toBe(200);
    expect(await locked(e)).toBe(false);
    expect(await ledgerOf(e)).toEqual([
      { kind: 'purchase', amount_cents: 1500, external_id: session.id },
    ]);
  });

  it('an expired Stripe session closes the checkout; the next unlock opens a new one', async () => {
    const e = await w.story('northwind.example', n++);
    const first = await unlock(e);
    const session = stripe.sessions.at(-1)!;
    const expired = await webhook({
      id: 'evt_test_expired',
      object: 'event',
      type: 'checkout.session.expired',
      data: {
        object: {
          id: session.id,
          object: 'checkout.session',
          client_reference_id: session.client_reference_id,
          metadata: { checkout_id: session['metadata[checkout_id]'] },
          payment_status: 'unpaid',
        },
      },
    });
    expect(expired.status).toBe(200);
    const second = await unlock(e);
    expect(second.body.checkout_url).not.toBe(first.body.checkout_url);
    expect(await locked(e)).toBe(true);
  });

  it('meters one unit with an idempotent identifier on the subscription', async () => {
    const c = await subscriber('cus_test_agency');
    const e = await c.story(n++);
    const r = await unlock(e, c);
    expect(r.body).toMatchObject({ ok: true, counted: false, billed_eur: 15 });
    // The job that reports client brands meters too, whenever it runs: look for the unlock.
    const sent = stripe.meterEvents.filter((m) => m.event_name === 'advisory_unlock').at(-1)!;
    expect(sent).toMatchObject({
      event_name: 'advisory_unlock',
      'payload[stripe_customer_id]': 'cus_test_agency',
      'payload[value]': '1',
    });
    expect(sent.identifier).toMatch(/^unlock_sto_/);
    expect(await ledgerOf(e)).toEqual([
      { kind: 'metered', amount_cents: 1500, external_id: sent.identifier },
    ]);
  });

  it('a failing meter call unlocks nothing and charges nothing (402)', async () => {
    const c = await subscriber('cus_test_failing');
    const e = await c.story(n++);
    stripe.failMeterWith = 400;
    try {
      const r = await unlock(e, c);
      expect(r.status).toBe(402);
      expect(r.text).toBe('{"error":"payment failed; nothing was unlocked"}');
    } finally {
      stripe.failMeterWith = null;
    }
    expect(await locked(e, c)).toBe(true);
    expect(await ledgerOf(e)).toEqual([]);
    // Once the provider answers again, the same request goes through.
    expect((await unlock(e, c)).body).toMatchObject({ ok: true, billed_eur: 15 });
  });

  it('holds no lock on the story while Stripe takes its time with the metering call', async () => {
    const c = await subscriber('cus_test_slow');
    const e = await c.story(n++);
    stripe.holdMeter = true;
    const pending = unlock(e, c);
    try {
      const sent = () => stripe.meterEvents.filter((m) => m.event_name === 'advisory_unlock');
      const before = sent().length;
      while (sent().length === before) await new Promise((r) => setTimeout(r, 20));
      // Another change to the same story (it locks the story too) goes through meanwhile.
      const assign = await svc.request('POST', '/v1/story/assign', {
        key: c.key,
        body: { brand: c.host, event_uri: e, assignee: 'ops@customer.example', invite: true },
      });
      expect(assign.status).toBe(200);
      expect(await locked(e, c)).toBe(true);
    } finally {
      stripe.holdMeter = false;
      stripe.releaseHeld();
    }
    expect((await pending).body).toMatchObject({ ok: true, billed_eur: 15 });
    expect(await locked(e, c)).toBe(false);
    expect(await ledgerOf(e)).toHaveLength(1);
  });
});
