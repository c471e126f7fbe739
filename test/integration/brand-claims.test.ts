import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { addBrand, requireBrandByHost } from '../../src/domain/brands.js';
import { importStory } from '../../src/domain/import-story.js';
import { listOutbox } from '../../src/email/outbox.js';
import { startDns } from '../support/dns.js';
import { startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';
import { article } from '../support/world.js';

/**
 * Brand squatting (issue 41): any account may add a host unverified, so the owner of the
 * domain claims it by proving control (a DNS TXT record, or a mailbox at the domain). The
 * claim takes the host from the unverified holder, whose stories of it are removed and
 * who is told; a verified host is not taken. Until then, the holder's shares say
 * "unverified" and stay out of the public index.
 */
let svc: TestService;
let dns: Awaited<ReturnType<typeof startDns>>;
const PASSWORD = 'correct horse battery';
let owner: PortalClient;
let squatter: PortalClient;
let squatterAccount: string;

beforeAll(async () => {
  dns = await startDns();
  svc = await startService({ DNS_SERVERS: dns.server }, { runJobs: false });
  squatterAccount = await createAccount(svc.app, 'Squat Co', 'pro');
  const ownerAccount = await createAccount(svc.app, 'Real Owner Inc', 'pro');
  for (const [accountId, email] of [
    [squatterAccount, 'boss@squat.example'],
    [ownerAccount, 'ceo@realowner.example'],
  ] as const) {
    await addUser(svc.app, { accountId, email, password: PASSWORD, role: 'owner' });
  }
  squatter = new PortalClient(svc.url);
  await squatter.signIn('boss@squat.example', PASSWORD);
  owner = new PortalClient(svc.url);
  await owner.signIn('ceo@realowner.example', PASSWORD);
});
afterAll(async () => {
  await svc.close();
  await dns.close();
});

/** The squatter adds `host` unverified, with a story shared publicly and listed. */
async function squat(host: string) {
  expect((await squatter.post('/app/brands', { host, name: 'Claimed' })).status).toBe(303);
  const brand = await requireBrandByHost(svc.app, host);
  const { event_uri } = await importStory(svc.app, {
    brand,
    article: article('Claimed', 1),
    actor: 'operator',
  });
  const page = `/app/stories/${host}/${encodeURIComponent(event_uri)}`;
  expect((await squatter.post(`${page}/unlock`)).status).toBe(303);
  await squatter.post(`${page}/share`, { access: 'public', mode: 'briefing', listed: 'on' });
  const share = /href="[^"]*(\/s\/[A-Za-z0-9_-]{24})"/.exec((await squatter.get(page)).html)![1]!;
  return { share };
}

const holderOf = async (host: string) =>
  svc.app.db
    .selectFrom('brands as b')
    .innerJoin('accounts as a', 'a.id', 'b.account_id')
    .select(['a.name', 'b.verified'])
    .where('b.host', '=', host)
    .executeTakeFirst();

describe('an unverified holder', () => {
  it('shares say "unverified" and stay out of the public index; a verified brand is listed', async () => {
    const { share } = await squat('squatted-one.example');
    const page = await (await fetch(`${svc.url}${share}`)).text();
    expect(page).toContain('<span class="badge">unverified</span>');
    expect(page).toContain(
      'Briefing shared by a team monitoring Claimed: unverified, squatted-one.example has not confirmed it',
    );
    expect(page).not.toContain('Briefing shared by Claimed ');
    expect(await (await fetch(`${svc.url}/shares`)).text()).not.toContain(share);
    // Once the brand is verified (by its owner's proof), its listed shares are indexed.
    await svc.app.db
      .updateTable('brands')
      .set({ verified: 1 })
      .where('host', '=', 'squatted-one.example')
      .execute();
    expect(await (await fetch(`${svc.url}/shares`)).text()).toContain(share);
    expect(await (await fetch(`${svc.url}${share}`)).text()).toContain(
      'Briefing shared by Claimed',
    );
  });
});

describe('claiming a host by its DNS record', () => {
  it('takes it from the unverified holder: theirs is removed, they are told, the owner has it verified', async () => {
    const host = 'squatted-dns.example';
    const { share } = await squat(host);
    // Adding it is refused, and says how to claim it.
    const add = await owner.post('/app/brands', { host });
    expect(add.status).toBe(409);
    expect(add.html).toContain('if the domain is yours, claim it by verifying it');
    expect(add.html).toContain('href="/app/brands/verify"');

    const claimPage = await owner.get(`/app/brands/verify?brand=${host}`);
    expect(claimPage.status).toBe(200);
    // The page says the same whoever holds the host: who does is not told before the proof.
    expect(claimPage.html).toContain(
      'If another team added it without verifying it, the proof takes it from them',
    );
    const name = /<dt>Name<\/dt><dd><code>([^<]+)<\/code>/.exec(claimPage.html)![1]!;
    const value = /<dt>Value<\/dt><dd><code>([^<]+)<\/code>/.exec(claimPage.html)![1]!;
    expect(name).toBe(`_stories-challenge.${host}`);
    expect(value).toMatch(/^stories-verification=[A-Za-z0-9_-]{32}$/);

    // Not published yet: a clear refusal, nothing changes.
    const early = await owner.post('/app/brands/verify/dns', { brand: host });
    expect(early.status).toBe(400);
    expect(early.html).toContain('no TXT record');
    // The squatter's own record proves nothing for the owner, nor the owner's for them.
    const squatterValue = /<dt>Value<\/dt><dd><code>([^<]+)<\/code>/.exec(
      (await squatter.get(`/app/brands/verify?brand=${host}`)).html,
    )![1]!;
    expect(squatterValue).not.toBe(value);
    dns.publish(name, squatterValue);
    expect((await owner.post('/app/brands/verify/dns', { brand: host })).status).toBe(400);
    expect((await holderOf(host))?.name).toBe('Squat Co');

    dns.publish(name, value);
    const claimed = await owner.post('/app/brands/verify/dns', { brand: host });
    expect(claimed.location).toBe('/app/brands?done=claimed');
    expect(await holderOf(host)).toEqual({ name: 'Real Owner Inc', verified: 1 });
    const brand = await requireBrandByHost(svc.app, host);
    // Named from its host, not as the squatter named it.
    expect(brand.name).toBe('Squatted-dns');
    const stories = await svc.app.db
      .selectFrom('stories')
      .select('id')
      .where('brand_id', '=', brand.id)
      .execute();
    expect(stories).toEqual([]);
    // The squatter's share is gone; its team was told by email.
    expect((await fetch(`${svc.url}${share}`)).status).toBe(404);
    const told = (await listOutbox(svc.app, 50)).find(
      (m) => m.to === 'boss@squat.example' && m.subject === `${host} was claimed by its owner`,
    );
    expect(told?.text).toContain(
      'its 1 story, with their advisories, plans and shares, were removed',
    );
    // The owner sees it among their brands, verified; the squatter no longer does.
    expect((await owner.get('/app/brands')).html).toContain(host);
    expect((await squatter.get('/app/brands')).html).not.toContain(host);
    // A verified host is not taken again, by anyone.
    const again = await squatter.post('/app/brands/verify/dns', { brand: host });
    expect(again.status).toBe(409);
    expect(again.html).toContain('is verified by another account');
  });

  it('adds a host nobody monitors, verified, and verifies an own unverified brand', async () => {
    const free = 'nobody-has-it.example';
    const page = await owner.get(`/app/brands/verify?brand=${free}`);
    expect(page.html).toContain('Proving that nobody-has-it.example is yours');
    dns.publish(
      `_stories-challenge.${free}`,
      /<dt>Value<\/dt><dd><code>([^<]+)<\/code>/.exec(page.html)![1]!,
    );
    expect((await owner.post('/app/brands/verify/dns', { brand: free })).location).toBe(
      '/app/brands?done=verified',
    );
    expect(await holderOf(free)).toEqual({ name: 'Real Owner Inc', verified: 1 });
  });
});

describe('claiming a host by a mailbox at the domain', () => {
  it('the link says it takes the host from another team, and does on confirmation', async () => {
    const host = 'squatted-mail.example';
    await squat(host);
    // Taking it from another team needs an administrative mailbox of the domain: any
    // address there (a student's at a university) verifies only the account's own brand.
    const press = await owner.post('/app/brands/verify', {
      brand: host,
      email: 'press@squatted-mail.example',
    });
    expect(press.status).toBe(400);
    expect(press.html).toContain(
      'admin@squatted-mail.example, administrator@squatted-mail.example',
    );
    const sent = await owner.post('/app/brands/verify', {
      brand: host,
      email: 'hostmaster@squatted-mail.example',
    });
    expect(sent.location).toBe('/app/brands?done=verify-sent');
    const mail = (await listOutbox(svc.app, 50)).find(
      (m) => m.to === 'hostmaster@squatted-mail.example',
    )!;
    expect(mail.text).toContain(
      'The team "Real Owner Inc" asked Stories to verify squatted-mail.example',
    );
    const link = new RegExp(`${svc.url}(/verify-brand/\\S+)`).exec(mail.text)![1]!;
    const reader = new PortalClient(svc.url);
    const asked = await reader.get(link);
    expect(asked.html).toContain('confirming takes squatted-mail.example from them');
    expect(await holderOf(host)).toMatchObject({ name: 'Squat Co' });
    const done = await reader.post(link, {});
    expect(done.status).toBe(200);
    expect(done.html).toContain('squatted-mail.example is verified');
    expect(await holderOf(host)).toEqual({ name: 'Real Owner Inc', verified: 1 });
    // An address off the domain is refused before anything is sent.
    const wrong = await owner.post('/app/brands/verify', {
      brand: 'another-one.example',
      email: 'me@elsewhere.example',
    });
    expect(wrong.status).toBe(400);
  });
});

describe('what is not claimable', () => {
  it('a host verified by its account stays theirs, even with a proof; a mailbox provider is refused', async () => {
    const verifiedOwner = await createAccount(svc.app, 'Verified Ltd', 'pro');
    const host = 'verified-already.example';
    await addBrand(svc.app, { accountId: verifiedOwner, host, verified: true });
    const page = await owner.get(`/app/brands/verify?brand=${host}`);
    // Nothing on the page says who holds it, or that it is verified.
    expect(page.html).not.toContain('Verified Ltd');
    expect(page.html).not.toContain('verified already');
    dns.publish(
      `_stories-challenge.${host}`,
      /<dt>Value<\/dt><dd><code>([^<]+)<\/code>/.exec(page.html)![1]!,
    );
    const refused = await owner.post('/app/brands/verify/dns', { brand: host });
    expect(refused.status).toBe(409);
    expect(refused.html).toContain('is verified by another account');
    expect(await holderOf(host)).toEqual({ name: 'Verified Ltd', verified: 1 });
    expect((await owner.get('/app/brands/verify?brand=gmail.com')).status).toBe(400);
    // A repeated parameter is not a host: the page asks for one.
    const twice = await owner.get('/app/brands/verify?brand=a.example&brand=b.example');
    expect(twice.status).toBe(200);
    expect(twice.html).toContain('Claim a brand');
  });

  it('links to one mailbox are capped whatever host they name: no flooding an address', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 6; i++) {
      const r = await owner.post('/app/brands/verify', {
        brand: `x${i}.flooded.example`,
        email: 'press@flooded.example',
      });
      statuses.push(r.status);
      if (r.status === 429) expect(r.headers.get('retry-after')).toBe('3600');
    }
    expect(statuses).toEqual([303, 303, 303, 303, 303, 429]);
  });
});
