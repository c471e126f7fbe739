import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { subscribe } from '../../src/domain/billing-admin.js';
import { addBrand, requireBrandByHost } from '../../src/domain/brands.js';
import { grantDelegation } from '../../src/domain/delegations.js';
import { importStory } from '../../src/domain/import-story.js';
import { startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';
import { article } from '../support/world.js';

/**
 * Billing in the portal: a subscribed account unlocks past its included units on its
 * subscription (asked first, naming the price), as REST meters; the billing page shows
 * every brand the account works on, client brands included, with this month's use.
 */
let svc: TestService;
let agency: string;
let client: string;
let n = 0;
const PASSWORD = 'correct horse battery';

async function storyPage(host: string, name: string) {
  const brand = await requireBrandByHost(svc.app, host);
  const { event_uri } = await importStory(svc.app, {
    brand,
    article: article(name, ++n),
    actor: 'operator',
  });
  return `/app/stories/${host}/${encodeURIComponent(event_uri)}`;
}

async function signedIn(email: string) {
  const c = new PortalClient(svc.url);
  await c.signIn(email, PASSWORD);
  await c.get('/app');
  return c;
}

const ledger = (accountId: string) =>
  svc.app.db
    .selectFrom('billing_ledger')
    .select(['kind', 'amount_cents'])
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .execute();

beforeAll(async () => {
  svc = await startService({}, { runJobs: false });
  agency = await createAccount(svc.app, 'Agency', 'agency');
  client = await createAccount(svc.app, 'Client', 'pro');
  for (const [accountId, email, role] of [
    [agency, 'owner@agency.example', 'owner'],
    [agency, 'member@agency.example', 'member'],
  ] as const) {
    await addUser(svc.app, { accountId, email, password: PASSWORD, role });
  }
  await addBrand(svc.app, {
    accountId: agency,
    host: 'agency.example',
    name: 'Agency',
    verified: true,
  });
  await addBrand(svc.app, {
    accountId: client,
    host: 'client.example',
    name: 'Client',
    verified: true,
  });
  await grantDelegation(svc.app, {
    partnerId: agency,
    clientId: client,
    host: 'client.example',
    actor: 'test',
  });
});
afterAll(() => svc.close());

describe('billing in the portal', () => {
  it('past the included unit: checkout without a subscription; on the subscription, asked first, with one', async () => {
    const owner = await signedIn('owner@agency.example');
    const first = await storyPage('agency.example', 'Agency');
    await owner.get(first);
    await owner.post(`${first}/unlock`);
    const second = await storyPage('agency.example', 'Agency');
    let page = (await owner.get(second)).html;
    expect(page).toContain('Continue to payment (15 EUR)');
    expect(page).not.toContain('unlock-metered');

    await subscribe(svc.app, agency, 'test');
    page = (await owner.get(second)).html;
    expect(page).toContain('Unlocking meters <strong>15.00 EUR</strong> on your subscription');
    expect(page).toContain(`action="${second}/unlock-metered"`);
    expect(page).toContain('or buy it once at checkout');
    // A member is offered the one-off purchase only, and refused the metered unlock.
    const member = await signedIn('member@agency.example');
    const theirs = (await member.get(second)).html;
    expect(theirs).not.toContain('unlock-metered');
    expect((await member.post(`${second}/unlock-metered`, { confirmed: 'yes' })).status).toBe(403);

    const before = await ledger(agency);
    const asked = await owner.post(`${second}/unlock-metered`);
    expect(asked.html).toContain('<h1>Unlock this advisory for 15.00 EUR?</h1>');
    expect(await ledger(agency)).toEqual(before);
    const done = await owner.post(`${second}/unlock-metered`, { confirmed: 'yes' });
    expect(done.location).toBe(`${second}?done=unlocked`);
    expect(await ledger(agency)).toEqual([...before, { kind: 'metered', amount_cents: 1500 }]);
    expect((await owner.get(second)).html).toContain('<h2>Response plan</h2>');
    // Once unlocked, asking again charges nothing.
    await owner.post(`${second}/unlock-metered`, { confirmed: 'yes' });
    expect(await ledger(agency)).toHaveLength(before.length + 1);
  });

  it('the billing page shows own and client brands with this month’s use, and the ledger of deleted brands', async () => {
    const owner = await signedIn('owner@agency.example');
    const onClient = await storyPage('client.example', 'Client');
    await owner.get(onClient);
    await owner.post(`${onClient}/unlock`);
    const html = (await owner.get('/app/billing')).html;
    expect(html).toMatch(
      /<tr><td>Client <span class="muted small">client\.example<\/span> <span class="badge">client<\/span><\/td><td>0 of 1<\/td><td>1<\/td><td>0<\/td><td>0\.00 EUR<\/td><\/tr>/,
    );
    expect(html).toMatch(
      /<tr><td>Agency <span class="muted small">agency\.example<\/span><\/td><td>[01] of 1<\/td>/,
    );

    // A deleted brand's ledger stays, named as such.
    await addBrand(svc.app, {
      accountId: agency,
      host: 'gone.example',
      name: 'Gone',
      verified: true,
    });
    const gone = await storyPage('gone.example', 'Gone');
    await owner.get(gone);
    await owner.post(`${gone}/unlock`);
    await owner.get('/app/brands');
    await owner.post('/app/brands/delete', { brand: 'gone.example', confirmed: 'yes' });
    const after = (await owner.get('/app/billing')).html;
    expect(after).toContain('<span class="muted">a deleted brand</span>');
    expect(after).not.toContain('gone.example');
  });
});
