import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { addBrand, requireBrandByHost } from '../../src/domain/brands.js';
import { grantDelegation } from '../../src/domain/delegations.js';
import { importStory } from '../../src/domain/import-story.js';
import { completeCheckout } from '../../src/domain/unlock.js';
import { startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';
import { article } from '../support/world.js';

/** Deleting a brand: asked first, owners only, everything made for it goes, money stays. */
let svc: TestService;
let client: string;
let agency: string;
const PASSWORD = 'correct horse battery';

async function signedIn(email: string) {
  const c = new PortalClient(svc.url);
  await c.signIn(email, PASSWORD);
  await c.get('/app/brands');
  return c;
}

/** A brand of the client's with two stories (one unlocked, shared, noted), a feed and a partner. */
async function monitoredBrand(host: string) {
  await addBrand(svc.app, { accountId: client, host, name: 'Acme', verified: true });
  const brand = await requireBrandByHost(svc.app, host);
  const events: string[] = [];
  for (const n of [1, 2]) {
    events.push(
      (await importStory(svc.app, { brand, article: article('Acme', n), actor: 'operator' }))
        .event_uri,
    );
  }
  await svc.app.db
    .insertInto('brand_feeds')
    .values({
      id: `fed_${host}`,
      brand_id: brand.id,
      url: 'https://news.example.org/feed.xml',
      etag: null,
      last_modified: null,
      last_polled_at: null,
      next_poll_at: null,
      last_status: null,
      last_error: null,
      created_at: new Date().toISOString(),
    })
    .execute();
  await svc.app.db
    .insertInto('feed_items')
    .values({
      id: `itm_${host}`,
      feed_id: `fed_${host}`,
      item_key: 'one',
      url: 'https://news.example.org/1',
      outcome: 'created',
      event_uri: events[0]!,
      created_at: new Date().toISOString(),
    })
    .execute();
  await grantDelegation(svc.app, { partnerId: agency, clientId: client, host, actor: 'test' });
  return { brand, events };
}

const count = async (
  table:
    | 'stories'
    | 'brand_feeds'
    | 'delegations'
    | 'story_documents'
    | 'coverage_days'
    | 'story_status_counts',
  brandId: string,
) =>
  (await svc.app.db.selectFrom(table).select('brand_id').where('brand_id', '=', brandId).execute())
    .length;

beforeAll(async () => {
  svc = await startService({}, { runJobs: false });
  client = await createAccount(svc.app, 'Acme', 'pro');
  agency = await createAccount(svc.app, 'Agency', 'agency');
  for (const [accountId, email, role] of [
    [client, 'owner@acme.example', 'owner'],
    [client, 'admin@acme.example', 'admin'],
    [agency, 'owner@agency.example', 'owner'],
  ] as const) {
    await addUser(svc.app, { accountId, email, password: PASSWORD, role });
  }
});
afterAll(() => svc.close());

describe('deleting a brand', () => {
  it('is asked first; then its stories, shares, feeds and partners go, and the ledger stays', async () => {
    const owner = await signedIn('owner@acme.example');
    const partner = await signedIn('owner@agency.example');
    const { brand, events } = await monitoredBrand('acme.example');
    const page = `/app/stories/acme.example/${encodeURIComponent(events[0]!)}`;
    await owner.get(page);
    await owner.post(`${page}/unlock`);
    await owner.post(`${page}/note`, { text: 'Our statement.' });
    await owner.post(`${page}/share`, { access: 'guests', mode: 'full' });
    await owner.post(`${page}/add-guest`, { email: 'press@news.example' });
    const share = /Shared at <a href="(http[^"]+)"/.exec((await owner.get(page)).html)![1]!;
    const ledger = await svc.app.db
      .selectFrom('billing_ledger')
      .select('id')
      .where('brand_id', '=', brand.id)
      .execute();
    expect(ledger.length).toBeGreaterThan(0);
    expect((await partner.get(page)).status).toBe(200);

    const storyIds = (
      await svc.app.db.selectFrom('stories').select('id').where('brand_id', '=', brand.id).execute()
    ).map((r) => r.id);
    const shareIds = (
      await svc.app.db.selectFrom('shares').select('id').where('story_id', 'in', storyIds).execute()
    ).map((r) => r.id);
    expect(shareIds).toHaveLength(1);
    await owner.get('/app/brands');
    const asked = await owner.post('/app/brands/delete', { brand: 'acme.example' });
    expect(asked.html).toContain('<h1>Delete acme.example?</h1>');
    expect(await count('stories', brand.id)).toBe(2);
    expect(await count('story_documents', brand.id)).toBe(2);
    expect(await count('coverage_days', brand.id)).toBeGreaterThan(0);

    expect(
      (await owner.post('/app/brands/delete', { brand: 'acme.example', confirmed: 'yes' }))
        .location,
    ).toBe('/app/brands?done=brand-deleted');
    for (const table of [
      'stories',
      'brand_feeds',
      'delegations',
      'story_documents',
      'coverage_days',
      'story_status_counts',
    ] as const) {
      expect(await count(table, brand.id)).toBe(0);
    }
    expect(
      await svc.app.db.selectFrom('brands').select('id').where('id', '=', brand.id).execute(),
    ).toEqual([]);
    // The partner lost it as on a revoke: audited, and its client-brand billing recalculated.
    const recalc = await svc.app.db
      .selectFrom('jobs')
      .select('payload')
      .where('name', '=', 'billing.client_brands')
      .where('status', '=', 'queued')
      .execute();
    expect(recalc.map((j) => JSON.parse(j.payload).account)).toContain(agency);
    expect(
      await svc.app.db
        .selectFrom('audit_log')
        .select('action')
        .where('brand_id', '=', brand.id)
        .where('action', '=', 'delegation.revoked')
        .execute(),
    ).toHaveLength(1);
    for (const table of ['articles', 'advisories', 'shares', 'brand_notes'] as const) {
      const left = await svc.app.db
        .selectFrom(table)
        .selectAll()
        .where('story_id', 'in', storyIds)
        .execute();
      expect(left, table).toEqual([]);
    }
    expect(
      await svc.app.db
        .selectFrom('share_guests')
        .selectAll()
        .where('share_id', 'in', shareIds)
        .execute(),
    ).toEqual([]);
    expect(
      await svc.app.db
        .selectFrom('feed_items')
        .selectAll()
        .where('feed_id', '=', 'fed_acme.example')
        .execute(),
    ).toEqual([]);
    expect(
      await svc.app.db
        .selectFrom('billing_ledger')
        .select('id')
        .where('brand_id', '=', brand.id)
        .execute(),
    ).toEqual(ledger);
    expect((await fetch(share)).status).toBe(404);
    expect((await owner.get(page)).status).toBe(404);
    expect((await partner.get(page)).status).toBe(404);
    expect((await owner.get('/app/activity')).html).toContain(
      'owner@acme.example deleted the brand acme.example with its 2 stories.',
    );

    // The host is free: adding it again starts from nothing.
    await owner.get('/app/brands');
    expect((await owner.post('/app/brands', { host: 'acme.example', name: 'Acme' })).location).toBe(
      '/app/brands?done=brand',
    );
    expect((await owner.get('/app/stories?brand=acme.example')).html).toContain('No stories match');
  });

  it('only the brand’s own owners delete it; a payment under way holds it back', async () => {
    const admin = await signedIn('admin@acme.example');
    const partner = await signedIn('owner@agency.example');
    const owner = await signedIn('owner@acme.example');
    const { brand, events } = await monitoredBrand('acme-two.example');

    expect((await admin.get('/app/brands')).html).not.toContain('/app/brands/delete');
    expect(
      (await admin.post('/app/brands/delete', { brand: 'acme-two.example', confirmed: 'yes' }))
        .status,
    ).toBe(403);
    await partner.get('/app/brands');
    expect(
      (await partner.post('/app/brands/delete', { brand: 'acme-two.example', confirmed: 'yes' }))
        .status,
    ).toBe(403);
    expect(await count('stories', brand.id)).toBe(2);
    expect(await count('story_documents', brand.id)).toBe(2);
    expect(await count('coverage_days', brand.id)).toBeGreaterThan(0);

    const story = await svc.app.db
      .selectFrom('stories')
      .select('id')
      .where('event_uri', '=', events[1]!)
      .executeTakeFirstOrThrow();
    await svc.app.db
      .insertInto('checkout_sessions')
      .values({
        id: 'chk_pending',
        account_id: client,
        story_id: story.id,
        amount_cents: 1500,
        currency: 'EUR',
        status: 'open',
        external_id: null,
        url: 'https://checkout.example/1',
        created_at: new Date().toISOString(),
        completed_at: null,
      })
      .execute();
    await owner.get('/app/brands');
    const held = await owner.post('/app/brands/delete', {
      brand: 'acme-two.example',
      confirmed: 'yes',
    });
    expect(held.status).toBe(409);
    expect(held.html).toContain('a payment for one of its stories is under way');
    expect(await count('stories', brand.id)).toBe(2);
    expect(await count('delegations', brand.id)).toBe(1);
  });

  it('a payment completed for a story deleted meanwhile is flagged for a refund, not lost', async () => {
    const { brand, events } = await monitoredBrand('acme-three.example');
    const story = await svc.app.db
      .selectFrom('stories')
      .select('id')
      .where('event_uri', '=', events[0]!)
      .executeTakeFirstOrThrow();
    const owner = await signedIn('owner@acme.example');
    await owner.get('/app/brands');
    await owner.post('/app/brands/delete', { brand: 'acme-three.example', confirmed: 'yes' });
    expect(await count('stories', brand.id)).toBe(0);
    // The checkout opened in the race: after the deletion's check, before its commit.
    await svc.app.db
      .insertInto('checkout_sessions')
      .values({
        id: 'chk_raced',
        account_id: client,
        story_id: story.id,
        amount_cents: 1500,
        currency: 'EUR',
        status: 'open',
        external_id: null,
        url: 'https://checkout.example/2',
        created_at: new Date().toISOString(),
        completed_at: null,
      })
      .execute();
    expect(
      await completeCheckout(svc.app, 'chk_raced', 'checkout:chk_raced', { paidAtProvider: true }),
    ).toEqual({
      completed: true,
    });
    const row = await svc.app.db
      .selectFrom('checkout_sessions')
      .select('status')
      .where('id', '=', 'chk_raced')
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('refund_due');
    const audit = await svc.app.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'billing.refund_due')
      .where('account_id', '=', client)
      .execute();
    expect(audit.map((a) => JSON.parse(a.details).checkout)).toContain('chk_raced');
  });
});
