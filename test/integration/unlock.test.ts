import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/domain/api-key-admin.js';
import { subscribe } from '../../src/domain/billing-admin.js';
import { startService, type TestService } from '../support/harness.js';
import { seedWorld, type World } from '../support/world.js';

/** The advisory lock of spec 3.2, row by row, on the built-in ledger. */
let svc: TestService;
let w: World;
let n = 10;

beforeAll(async () => {
  svc = await startService();
  w = await seedWorld(svc.app);
});
afterAll(() => svc.close());

const unlock = (brand: string, event_uri: string, key = w.keys.owner) =>
  svc.request('POST', '/v1/advisory', { key, body: { brand, event_uri } });
const story = (brand: string, event_uri: string, key = w.keys.owner) =>
  svc.request('GET', '/v1/story', { key, query: { brand, event_uri } });
const ledger = (storyEventUri: string) =>
  svc.app.db
    .selectFrom('billing_ledger as l')
    .innerJoin('stories as s', 's.id', 'l.story_id')
    .select(['l.account_id', 'l.kind', 'l.amount_cents', 's.event_uri'])
    .where('s.event_uri', '=', storyEventUri)
    .execute();

/**
 * Each test runs on an account of its own (its brand's included unit, its subscription),
 * so none depends on what another used or bought before it. `used` spends the included
 * unit of this month first, as earlier unlocks would have.
 */
async function customer(opts: { subscribed?: boolean; used?: boolean } = {}) {
  const c = await w.customer();
  if (opts.subscribed) await subscribe(svc.app, c.accountId, 'test');
  const fresh = () => c.story(n++);
  if (opts.used) expect((await unlock(c.host, await fresh(), c.key)).body.counted).toBe(true);
  return { ...c, fresh, unlock: (e: string, key = c.key) => unlock(c.host, e, key) };
}

describe('trigger_advisory on the built-in ledger', () => {
  it('uses the included unit first: unlocked, counted, nothing billed', async () => {
    const c = await customer();
    const member = await createKey(svc.app, {
      accountId: c.accountId,
      role: 'member',
      scope: null,
      actor: 'test',
    });
    const e = await c.fresh();
    const r = await c.unlock(e, member.key);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      ok: true,
      counted: true,
      billed_eur: 0,
      note: 'included unit used: 1 of 1 this month',
    });
    const s = await story(c.host, e, c.key);
    expect(s.body.story.advisory.locked).toBe(false);
    expect(s.body.story.advisory.phases.length).toBeGreaterThanOrEqual(3);
    expect(await ledger(e)).toEqual([
      { account_id: c.accountId, kind: 'included', amount_cents: 0, event_uri: e },
    ]);
  });

  it('answers ok at once for an unlocked advisory and charges nothing', async () => {
    const c = await customer();
    const e = await c.fresh();
    await c.unlock(e);
    const r = await c.unlock(e);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, counted: false, billed_eur: 0 });
    expect(await ledger(e)).toHaveLength(1);
  });

  it('without a subscription unlocks nothing and offers a checkout; confirming it unlocks once', async () => {
    const c = await customer({ used: true });
    const e = await c.fresh();
    const r = await c.unlock(e);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: false, counted: false, billed_eur: 0 });
    expect(r.body.checkout_url).toMatch(
      new RegExp(`^${svc.url}/billing/checkout/chk_[a-z0-9]{26}$`),
    );
    expect((await story(c.host, e, c.key)).body.story.advisory.locked).toBe(true);
    expect(await ledger(e)).toEqual([]);
    // Asking again offers the same checkout, not a second one.
    expect((await c.unlock(e)).body.checkout_url).toBe(r.body.checkout_url);

    const page = await fetch(r.body.checkout_url);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('Confirm purchase: 15.00 EUR');
    expect(html).toContain('Nothing has been charged yet');

    const confirm = () =>
      fetch(r.body.checkout_url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
        redirect: 'manual',
      });
    const [a, b] = await Promise.all([confirm(), confirm()]);
    expect([a.status, b.status]).toEqual([303, 303]);
    expect((await story(c.host, e, c.key)).body.story.advisory.locked).toBe(false);
    expect(await ledger(e)).toEqual([
      { account_id: c.accountId, kind: 'purchase', amount_cents: 1500, event_uri: e },
    ]);
    expect(await (await fetch(r.body.checkout_url)).text()).toContain('Purchase confirmed');
  });

  it('with an Idempotency-Key and no subscription, still unlocks nothing', async () => {
    const c = await customer({ used: true });
    const e = await c.fresh();
    const r = await svc.request('POST', '/v1/advisory', {
      key: c.key,
      headers: { 'idempotency-key': `unlock-${e}` },
      body: { brand: c.host, event_uri: e },
    });
    expect(r.body).toMatchObject({ ok: false, billed_eur: 0 });
    expect(r.body.checkout_url).toBeTruthy();
    expect((await story(c.host, e, c.key)).body.story.advisory.locked).toBe(true);
    expect(await ledger(e)).toEqual([]);
  });

  it('a checkout left open when the story is unlocked another way can no longer be charged', async () => {
    const c = await customer({ used: true });
    const e = await c.fresh();
    const offer = await c.unlock(e);
    expect(offer.body.checkout_url).toBeTruthy();
    await subscribe(svc.app, c.accountId, 'test');
    expect((await c.unlock(e)).body).toMatchObject({ ok: true, billed_eur: 15 });
    const confirm = await fetch(offer.body.checkout_url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    expect(confirm.status).toBe(303);
    expect(await (await fetch(offer.body.checkout_url)).text()).toContain('nothing was charged');
    expect((await ledger(e)).map((l) => l.kind)).toEqual(['metered']);
  });

  it('meters 15 EUR on the subscription once the included units are used', async () => {
    const c = await customer({ subscribed: true, used: true });
    const e = await c.fresh();
    const r = await c.unlock(e);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, counted: false, billed_eur: 15 });
    expect(await ledger(e)).toEqual([
      { account_id: c.accountId, kind: 'metered', amount_cents: 1500, event_uri: e },
    ]);
    const audit = await svc.app.db
      .selectFrom('audit_log')
      .select('action')
      .where('story_id', '=', (eb) =>
        eb.selectFrom('stories').select('id').where('event_uri', '=', e),
      )
      .orderBy('created_at')
      .execute();
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining(['advisory.unlocked', 'billing.charged']),
    );
  });

  it('bills the partner for a delegated brand, using the brand’s included unit first', async () => {
    // A client brand of the agency's own for this test, and the agency subscribed.
    await subscribe(svc.app, w.accounts.agency, 'test');
    const host = await w.clientBrand();
    const first = await w.story(host, n++);
    expect((await unlock(host, first)).body).toMatchObject({ ok: true, counted: true });
    const second = await w.story(host, n++);
    const r = await unlock(host, second);
    expect(r.body).toMatchObject({ ok: true, counted: false, billed_eur: 15 });
    // The agency (partner) pays, not the client that owns the brand.
    expect(await ledger(second)).toEqual([
      { account_id: w.accounts.agency, kind: 'metered', amount_cents: 1500, event_uri: second },
    ]);
  });

  it('charges exactly once for 20 concurrent unlocks of one story', async () => {
    const c = await customer({ subscribed: true, used: true });
    const e = await c.fresh();
    const answers = await Promise.all(Array.from({ length: 20 }, () => c.unlock(e)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(answers.filter((a) => a.body.billed_eur === 15)).toHaveLength(1);
    expect(await ledger(e)).toHaveLength(1);
  });

  it('starts a new calendar month with a fresh included unit', async () => {
    const c = await customer({ used: true });
    // Last month's included unit of this brand does not count against this month.
    await svc.app.db
      .updateTable('billing_ledger')
      .set({ period: '2000-01' })
      .where('account_id', '=', c.accountId)
      .execute();
    const r = await c.unlock(await c.fresh());
    expect(r.body).toMatchObject({ ok: true, counted: true, billed_eur: 0 });
  });

  it('answers 404 for an unknown story and 400 for a bad body', async () => {
    expect((await unlock('northwind.example', 'evt_unknown')).text).toBe('{"error":"not found"}');
    const bad = await svc.request('POST', '/v1/advisory', {
      key: w.keys.owner,
      body: { brand: 'northwind.example', event_uri: 'x', extra: 1 },
    });
    expect(bad.status).toBe(400);
  });
});
