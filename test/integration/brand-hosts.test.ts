import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signLink } from '../../src/auth/signed-links.js';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { listOutbox } from '../../src/email/outbox.js';
import { startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';
import { seedWorld, type World } from '../support/world.js';

/**
 * A brand is a registrable domain or a name under one: public suffixes (ICANN's com and
 * co.uk, private ones such as github.io), single-label names and IP addresses are refused
 * on every way a brand comes to be (portal, delegation invite, onboarding) and verified,
 * and a mailbox speaks for a brand only on the brand's registrable domain.
 */
let svc: TestService;
let w: World;
let c: PortalClient;
const RETURN = 'https://partner.example/clients/return';
const escaped = (s: string) => s.replaceAll("'", '&#39;');
/** The error a portal page shows. */
const alert = (html: string) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(html)?.[1];

beforeAll(async () => {
  svc = await startService({}, { runJobs: false });
  w = await seedWorld(svc.app);
  const acme = await createAccount(svc.app, 'Hosts Ltd', 'partner');
  await addUser(svc.app, {
    accountId: acme,
    email: 'admin@hosts.example',
    password: 'correct horse battery',
    role: 'admin',
  });
  c = new PortalClient(svc.url);
  await c.signIn('admin@hosts.example', 'correct horse battery');
  await c.get('/app/brands');
});
afterAll(() => svc.close());

const brandRow = (host: string) =>
  svc.app.db.selectFrom('brands').selectAll().where('host', '=', host).executeTakeFirst();

/** Adds a brand of the test's own from the portal. */
async function addBrand(host: string) {
  const r = await c.post('/app/brands', { host, name: 'Mine' });
  expect(r.status, host).toBe(303);
}

/** Sends the verification link from the portal and answers the path it mails. */
async function verificationLink(brand: string, email: string) {
  const sent = await c.post('/app/brands/verify', { brand, email });
  expect(sent.location, sent.html).toBe('/app/brands?done=verify-sent');
  const mail = (await listOutbox(svc.app, 500)).filter((m) => m.to === email).at(-1)!;
  return new RegExp(`${svc.url}(/verify-brand/\\S+)`).exec(mail.text)![1]!;
}

describe('adding a brand in the portal', () => {
  it('refuses public suffixes, single labels and IP addresses with the reason', async () => {
    const refused = {
      com: "com is a public suffix, not a brand's domain",
      'co.uk': "co.uk is a public suffix, not a brand's domain",
      'github.io': "github.io is a public suffix, not a brand's domain",
      intranet: "intranet is a single-label name, not a brand's domain",
      '192.168.1.10': "192.168.1.10 is an IP address, not a brand's domain",
    };
    for (const [host, reason] of Object.entries(refused)) {
      // Another test makes a co.uk row on purpose (one stored before these rules).
      const before = await brandRow(host);
      const r = await c.post('/app/brands', { host, name: 'Mine' });
      expect(r.status, host).toBe(400);
      expect(alert(r.html), host).toBe(escaped(`Host: ${reason}`));
      expect(await brandRow(host), host).toEqual(before);
    }
    const bad = await c.post('/app/brands', { host: 'under_score.example', name: 'Mine' });
    expect(bad.status).toBe(400);
    // Names registered under a suffix, ICANN or private, are somebody's own brand.
    for (const host of ['acme.co.uk', 'shop.acme.co.uk', 'acme.github.io']) {
      expect((await c.post('/app/brands', { host, name: 'Mine' })).status, host).toBe(303);
    }
  });
});

describe('verifying a brand by email', () => {
  it('accepts any mailbox on the registrable domain, for a subdomain brand too', async () => {
    await addBrand('shop.accept.co.uk');
    const link = await verificationLink('shop.accept.co.uk', 'ops@mail.accept.co.uk');
    const mailbox = new PortalClient(svc.url);
    expect((await mailbox.get(link)).html).toContain('Is shop.accept.co.uk yours?');
    expect((await mailbox.post(link)).html).toContain('shop.accept.co.uk is verified');
    expect((await brandRow('shop.accept.co.uk'))!.verified).toBe(1);
  });

  it('refuses a mailbox elsewhere under the same public suffix', async () => {
    await addBrand('refuse.co.uk');
    await addBrand('refuse.github.io');
    for (const [brand, email, domain] of [
      ['refuse.co.uk', 'ops@anything.co.uk', 'refuse.co.uk'],
      ['refuse.github.io', 'me@evil.github.io', 'refuse.github.io'],
    ] as const) {
      const r = await c.post('/app/brands/verify', { brand, email });
      expect(r.status, email).toBe(400);
      expect(r.html, email).toContain(`Email: must be an address on ${domain}`);
    }
    expect((await brandRow('refuse.co.uk'))!.verified).toBe(0);
  });

  it('a suffix brand from before these rules is never verified, by a new or an old link', async () => {
    await addBrand('legacy.co.uk');
    // A link as they were sent before claims: naming the brand by its id (links now name
    // the host, which a suffix never is).
    const { id } = (await brandRow('legacy.co.uk'))!;
    const link = `/verify-brand/${await signLink(svc.app, 'brand-verify', { b: id, e: 'ops@legacy.co.uk' }, 3600_000)}`;
    // The brand becomes co.uk, as a row stored before hosts were checked could be.
    await svc.app.db
      .updateTable('brands')
      .set({ host: 'co.uk' })
      .where('host', '=', 'legacy.co.uk')
      .execute();
    const r = await c.post('/app/brands/verify', { brand: 'co.uk', email: 'ops@anything.co.uk' });
    expect(r.status).toBe(400);
    expect(r.html).toContain(escaped("Brand: co.uk is a public suffix, not a brand's domain"));
    const mailbox = new PortalClient(svc.url);
    expect((await mailbox.get(link)).status).toBe(400);
    await mailbox.get('/signin'); // a form's token, as if the page had offered one
    expect((await mailbox.post(link)).status).toBe(400);
    expect((await brandRow('co.uk'))!.verified).toBe(0);
  });
});

describe('delegation invites and onboarding', () => {
  const invite = (brand: string) =>
    svc.request('POST', '/v1/delegation-invites', {
      key: w.keys.owner,
      body: { brand, return_url: RETURN },
    });

  it('an invite for a suffix, a single label, a special-use name, an IP address or a mailbox provider is a 400 naming it', async () => {
    const started = svc.app.clock.now().toISOString();
    for (const [brand, error] of [
      ['co.uk', "brand: co.uk is a public suffix, not a brand's domain"],
      ['blogspot.com', "brand: blogspot.com is a public suffix, not a brand's domain"],
      ['intranet', "brand: intranet is a single-label name, not a brand's domain"],
      [
        'acme.local',
        "brand: acme.local is a special-use name that no public site has, not a brand's domain",
      ],
      ['10.1.2.3', "brand: 10.1.2.3 is an IP address, not a brand's domain"],
      ['gmail.com', 'brand: gmail.com is a mailbox provider; its owner verifies with us directly'],
    ]) {
      const r = await invite(brand!);
      expect(r.status, brand).toBe(400);
      expect(r.body, brand).toEqual({ error });
    }
    // None was stored (another test renames an invite to co.uk on purpose: not this one's).
    const mine = await svc.app.db
      .selectFrom('delegation_invites')
      .select('brand_host')
      .where('partner_account_id', '=', w.accounts.agency)
      .where('created_at', '>=', started)
      .execute();
    expect(mine).toEqual([]);
  });

  it('an invite made before the rules cannot onboard a suffix, at sign-up or at consent', async () => {
    const form = (path: string, fields: Record<string, string>) =>
      fetch(new URL(path, svc.url), {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });
    const early = await invite('early.example');
    const late = await invite('late.example');
    // late.example is signed up for while the host was still fine…
    expect(
      (await form(`/onboard/${late.body.token}/signup`, { email: 'ceo@late.example' })).status,
    ).toBe(200);
    const mail = (await listOutbox(svc.app, 500)).find((m) => m.to === 'ceo@late.example')!;
    const link = /\/onboard\/confirm\/(\S+)/.exec(mail.text)![1]!;
    // …then an invite names a suffix, as invites stored before these rules could.
    const rename = (from: string, to: string) =>
      svc.app.db
        .updateTable('delegation_invites')
        .set({ brand_host: to })
        .where('brand_host', '=', from)
        .execute();
    await rename('early.example', 'co.uk');
    const signUp = await form(`/onboard/${early.body.token}/signup`, {
      email: 'ceo@anything.co.uk',
    });
    expect(signUp.status).toBe(400);
    expect(await signUp.text()).toContain(
      escaped("co.uk is a public suffix, not a brand's domain"),
    );
    await rename('co.uk', 'early.example');
    await rename('late.example', 'co.uk');
    const brandsBefore = await svc.app.db.selectFrom('brands').selectAll().execute();
    const consent = await form(`/onboard/confirm/${link}`, {
      decision: 'approve',
      password: 'correct horse battery',
    });
    expect(consent.status).toBe(400);
    expect(await consent.text()).toContain(
      escaped("co.uk is a public suffix, not a brand's domain"),
    );
    expect(await svc.app.db.selectFrom('brands').selectAll().execute()).toEqual(brandsBefore);
    const users = await svc.app.db.selectFrom('users').select('email').execute();
    expect(users.map((u) => u.email)).not.toContain('ceo@late.example');
    const states = await svc.app.db.selectFrom('delegation_invites').select('status').execute();
    expect(states.map((s) => s.status)).toEqual(['pending', 'pending']);
  });
});
