import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe } from '../../src/domain/billing-admin.js';
import { startService, type TestService } from '../support/harness.js';
import { seedWorld, type World } from '../support/world.js';

/** The advisory lock of spec 3.2, row by row, on the built-in ledger. */
let svc: TestService;
let w: World;
let n = 10;
let unlockedStory: string;

beforeAll(async () => {
  svc = await startService();
  w = await seedWorld(svc.app);
});
afterAll(() => svc.close());

const unlock = (brand: string, event_uri: string, key = w.keys.owner) =>
  svc.request('POST', '/v1/advisory', { key, body: { brand, event_uri } });
const story = (brand: string, event_uri: string, key = w.keys.owner) =>
  svc.request('GET', '/v1/story', { key, query: { brand, event_uri } });
const ledger = (storyEventUri?: string) =>
  svc.app.db
    .selectFrom('billing_ledger as l')
    .innerJoin('stories as s', 's.id', 'l.story_id')
    .select(['l.account_id', 'l.kind', 'l.amount_cents', 's.event_uri'])
    .$if(storyEventUri !== undefined, (q) => q.where('s.event_uri', '=', storyEventUri!))
    .execute();
const fresh = (host = 'northwind.example') => w.story(host, n++);

describe('trigger_advisory on the built-in ledger', () => {
  it('uses the included unit first: unlocked, counted, nothing billed', async () => {
    const e = await fresh();
    unlockedStory = e;
    const r = await unlock('northwind.example', e, w.keys.member);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      ok: true,
      counted: true,
      billed_eur: 0,
      note: 'included unit used: 1 of 1 this month',
    });
    const s = await story('northwind.example', e);
    expect(s.body.story.advisory.locked).toBe(false);
    expect(s.body.story.advisory.phases.length).toBeGreaterThanOrEqual(3);
    expect(await ledger(e)).toEqual([
      { account_id: w.accounts.agency, kind: 'included', amount_cents: 0, event_uri: e },
    ]);
  });

  it('answers ok at once for an unlocked advisory and charges nothing', async () => {
    const e = unlockedStory;
    const before = (await ledger()).length;
    const r = await unlock('northwind.example', e);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, counted: false, billed_eur: 0 });
    expect((await ledger()).length).toBe(before);
  });

  it('without a subscription unlocks nothing and offers a checkout; confirming it unlocks once', async () => {
    const e = await fresh(); // the included unit of this month is used above
    const r = await unlock('northwind.example', e);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: false, counted: false, billed_eur: 0 });
    expect(r.body.checkout_url).toMatch(
      new RegExp(`^${svc.url}/billing/checkout/chk_[a-z0-9]{26}$`),
    );
    expect((await story('northwind.example', e)).body.story.advisory.locked).toBe(true);
    expect(await ledger(e)).toEqual([]);
    // Asking again offers the same checkout, not a second one.
    expect((await unlock('northwind.example', e)).body.checkout_url).toBe(r.body.checkout_url);

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
    expect((await story('northwind.example', e)).body.story.advisory.locked).toBe(false);
    expect(await ledger(e)).toEqual([
      { account_id: w.accounts.agency, kind: 'purchase', amount_cents: 1500, event_uri: e },
    ]);
    expect(await (await fetch(r.body.checkout_url)).text()).toContain('Purchase confirmed');
  });

  it('with an Idempotency-Key and no subscription, still unlocks nothing', async () => {
    const e = await fresh();
    const r = await svc.request('POST', '/v1/advisory', {
      key: w.keys.owner,
      headers: { 'idempotency-key': `unlock-${e}` },
      body: { brand: 'northwind.example', event_uri: e },
    });
    expect(r.body).toMatchObject({ ok: false, billed_eur: 0 });
    expect(r.body.checkout_url).toBeTruthy();
    expect((await story('northwind.example', e)).body.story.advisory.locked).toBe(true);
    expect(await ledger(e)).toEqual([]);
  });

  it('a checkout left open when the story is unlocked another way can no longer be charged', async () => {
    const e = await fresh();
    const offer = await unlock('northwind.example', e);
    expect(offer.body.checkout_url).toBeTruthy();
    await subscribe(svc.app, w.accounts.agency, 'test');
    expect((await unlock('northwind.example', e)).body).toMatchObject({ ok: true, billed_eur: 15 });
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
    await subscribe(svc.app, w.accounts.agency, 'test');
    const e = await fresh();
    const r = await unlock('northwind.example', e);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, counted: false, billed_eur: 15 });
    expect(await ledger(e)).toEqual([
      { account_id: w.accounts.agency, kind: 'metered', amount_cents: 1500, event_uri: e },
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
    const first = await fresh('acme.com');
    expect((await unlock('acme.com', first)).body).toMatchObject({ ok: true, counted: true });
    const second = await fresh('acme.com');
    const r = await unlock('acme.com', second);
    expect(r.body).toMatchObject({ ok: true, counted: false, billed_eur: 15 });
    // The agency (partner) pays, not the client that owns the brand.
    expect(await ledger(second)).toEqual([
      { account_id: w.accounts.agency, kind: 'metered', amount_cents: 1500, event_uri: second },
    ]);
  });

  it('charges exactly once for 20 concurrent unlocks of one story', async () => {
    const e = await fresh();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => unlock('northwind.example', e)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(answers.filter((a) => a.body.billed_eur === 15)).toHaveLength(1);
    expect(await ledger(e)).toHaveLength(1);
  });

  it('starts a new calendar month with a fresh included unit', async () => {
    // Last month's included unit of this brand does not count against this month.
    await svc.app.db
      .updateTable('billing_ledger')
      .set({ period: '2000-01' })
      .where('brand_id', '=', (eb) =>
        eb.selectFrom('brands').select('id').where('host', '=', 'northwind.example'),
      )
      .execute();
    const r = await unlock('northwind.example', await fresh());
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
