import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { subscribe } from '../../src/domain/billing-admin.js';
import { addBrand } from '../../src/domain/brands.js';
import { grantDelegation, revokeDelegation } from '../../src/domain/delegations.js';
import { listOutbox } from '../../src/email/outbox.js';
import { startService, type TestService } from '../support/harness.js';
import { seedWorld, type World } from '../support/world.js';

/** Delegations, delegation invites and the onboarding flow, driven over HTTP. */
let svc: TestService;
let w: World;
const RETURN = 'https://partner.example/clients/return?from=stories';

beforeAll(async () => {
  svc = await startService({}, { runJobs: false });
  w = await seedWorld(svc.app);
  await subscribe(svc.app, w.accounts.agency, 'test');
  await svc.app.jobs.drain();
});
afterAll(() => svc.close());

const invite = (brand: string, key = w.keys.owner, return_url = RETURN) =>
  svc.request('POST', '/v1/delegation-invites', { key, body: { brand, return_url } });

/** A tiny browser for the onboarding pages: forms only, redirects by hand. */
async function form(path: string, fields: Record<string, string>) {
  return fetch(new URL(path, svc.url), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

/** Signs up through the invite and answers the emailed link; returns where it ends. */
async function onboard(token: string, email: string, decision: 'approve' | 'decline') {
  const page = await fetch(`${svc.url}/onboard/${token}`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('Northwind invites you');
  const link = await signUp(token, email);
  const consent = await fetch(`${svc.url}/onboard/confirm/${link}`);
  expect(await consent.text()).toContain('Allow Northwind to act on');
  const answer = await form(`/onboard/confirm/${link}`, {
    decision,
    password: 'correct horse battery',
  });
  expect(answer.status, await answer.clone().text()).toBe(303);
  return new URL(answer.headers.get('location')!);
}

/** The sign-up form, then the link from the email it sends. */
async function signUp(token: string, email: string) {
  const signup = await form(`/onboard/${token}/signup`, { email });
  expect(signup.status, await signup.clone().text()).toBe(200);
  const mail = (await listOutbox(svc.app, 200)).find((m) => m.to === email)!;
  return /\/onboard\/confirm\/(\S+)/.exec(mail.text)![1]!;
}

const clientBrands = async () =>
  (
    await svc.app.db
      .selectFrom('billing_subscriptions')
      .select('client_brands')
      .where('account_id', '=', w.accounts.agency)
      .executeTakeFirstOrThrow()
  ).client_brands;

describe('delegation lifecycle', () => {
  it('invite → onboarding → active → partner reads → drop → 404, account handed back with a 7-day trial', async () => {
    const created = await invite('newclient.example');
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      ok: true,
      brand: 'newclient.example',
      status: 'pending',
      return_url: RETURN,
      onboarding_url: `${svc.url}/onboard/${created.body.token}`,
    });

    // Not the brand's domain: refused, nothing created.
    const wrong = await form(`/onboard/${created.body.token}/signup`, {
      email: 'someone@gmail.com',
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('must be an address at newclient.example');

    const back = await onboard(created.body.token, 'ceo@eu.newclient.example', 'approve');
    expect(back.origin + back.pathname).toBe('https://partner.example/clients/return');
    expect(Object.fromEntries(back.searchParams)).toEqual({
      from: 'stories',
      brand: 'newclient.example',
      outcome: 'approved',
    });

    const list = await svc.request('GET', '/v1/delegations', { key: w.keys.owner });
    expect(list.body.delegations).toContainEqual({
      brand_key: 'newclient.example',
      status: 'active',
      client: expect.any(String),
    });
    const brands = await svc.request('GET', '/v1/brands', { key: w.keys.owner });
    expect(brands.body.brands).toContainEqual(
      expect.objectContaining({ brand: 'newclient.example', verified: true, delegated: true }),
    );
    await svc.app.jobs.drain();
    const billed = await clientBrands();

    const dropped = await svc.request('DELETE', '/v1/delegations', {
      key: w.keys.admin,
      query: { brand: 'newclient.example' },
    });
    expect(dropped.body).toEqual({
      ok: true,
      brand: 'newclient.example',
      status: 'dropped',
      client_account: 'handed_back',
      trial_ends_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const after = await svc.request('GET', '/v1/stories', {
      key: w.keys.owner,
      query: { brand: 'newclient.example' },
    });
    expect(after.status).toBe(404);
    expect(after.text).toBe('{"error":"not found"}');
    const again = await svc.request('DELETE', '/v1/delegations', {
      key: w.keys.admin,
      query: { brand: 'newclient.example' },
    });
    expect(again.status).toBe(404);

    const clientId = list.body.delegations.find(
      (d: { brand_key: string }) => d.brand_key === 'newclient.example',
    ).client;
    const account = await svc.app.db
      .selectFrom('accounts')
      .select(['state', 'trial_ends_at'])
      .where('id', '=', clientId)
      .executeTakeFirstOrThrow();
    expect(account.state).toBe('handed_back');
    expect(account.trial_ends_at).toBe(dropped.body.trial_ends_at);
    const trialDays = (Date.parse(account.trial_ends_at!) - Date.now()) / 86_400_000;
    expect(trialDays).toBeGreaterThan(6.99);
    expect(trialDays).toBeLessThanOrEqual(7);

    // The billed quantity drops at the next recalculation.
    await svc.app.jobs.drain();
    expect(await clientBrands()).toBe(billed - 1);
  });

  it('a client account still delegated to another partner is retained', async () => {
    const client = await createAccount(svc.app, 'Two Partners', 'pro');
    const second = await createAccount(svc.app, 'Second Agency', 'agency');
    await addBrand(svc.app, {
      accountId: client,
      host: 'twopartners.example',
      name: undefined,
      verified: true,
    });
    await addBrand(svc.app, {
      accountId: client,
      host: 'twopartners2.example',
      name: undefined,
      verified: true,
    });
    await grantDelegation(svc.app, {
      partnerId: w.accounts.agency,
      clientId: client,
      host: 'twopartners.example',
      actor: 'test',
    });
    await grantDelegation(svc.app, {
      partnerId: second,
      clientId: client,
      host: 'twopartners2.example',
      actor: 'test',
    });
    const r = await svc.request('DELETE', '/v1/delegations', {
      key: w.keys.owner,
      query: { brand: 'twopartners.example' },
    });
    expect(r.body).toMatchObject({ client_account: 'retained', trial_ends_at: null });
  });

  it('a client revokes from its side: the partner gets 404 at once', async () => {
    const client = await createAccount(svc.app, 'Revoker', 'pro');
    await addBrand(svc.app, {
      accountId: client,
      host: 'revoker.example',
      name: undefined,
      verified: true,
    });
    await grantDelegation(svc.app, {
      partnerId: w.accounts.agency,
      clientId: client,
      host: 'revoker.example',
      actor: 'test',
    });
    const before = await svc.request('GET', '/v1/stories', {
      key: w.keys.owner,
      query: { brand: 'revoker.example' },
    });
    expect(before.status).toBe(200);
    await revokeDelegation(svc.app, {
      clientId: client,
      partnerId: w.accounts.agency,
      host: 'revoker.example',
      actor: 'user:client',
    });
    const after = await svc.request('GET', '/v1/stories', {
      key: w.keys.owner,
      query: { brand: 'revoker.example' },
    });
    expect(after.status).toBe(404);
    const list = await svc.request('GET', '/v1/delegations', { key: w.keys.owner });
    expect(list.body.delegations).toContainEqual({
      brand_key: 'revoker.example',
      status: 'revoked',
      client,
    });
  });

  it('an API key can never grant a delegation', async () => {
    const r = await svc.request('POST', '/v1/delegations', { key: w.keys.owner, body: {} });
    expect(r.status).toBe(403);
  });

  it('signing up creates nothing until the emailed link is used and answered; a decline creates nothing', async () => {
    const created = await invite('declines.example');
    const link = await signUp(created.body.token, 'owner@declines.example');
    const users = await svc.app.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'owner@declines.example')
      .execute();
    expect(users).toEqual([]);
    // Opening the link changes nothing either.
    expect((await fetch(`${svc.url}/onboard/confirm/${link}`)).status).toBe(200);
    const answer = await form(`/onboard/confirm/${link}`, { decision: 'decline' });
    expect(new URL(answer.headers.get('location')!).searchParams.get('outcome')).toBe('declined');
    const brand = await svc.app.db
      .selectFrom('brands')
      .select('id')
      .where('host', '=', 'declines.example')
      .execute();
    expect(brand).toEqual([]);
    const list = await svc.request('GET', '/v1/delegations', { key: w.keys.owner });
    expect(
      list.body.delegations.some((d: { brand_key: string }) => d.brand_key === 'declines.example'),
    ).toBe(false);
    // The link is spent.
    expect((await fetch(`${svc.url}/onboard/confirm/${link}`)).status).toBe(404);
  });

  it('an existing customer must accept as its owner or an admin; their password is left alone', async () => {
    const client = await createAccount(svc.app, 'Existing', 'pro');
    await addBrand(svc.app, {
      accountId: client,
      host: 'existing.example',
      name: undefined,
      verified: false,
    });
    await addUser(svc.app, {
      accountId: client,
      email: 'member@existing.example',
      password: 'correct horse battery',
      role: 'member',
    });
    await addUser(svc.app, {
      accountId: client,
      email: 'boss@existing.example',
      password: 'correct horse battery',
      role: 'owner',
    });
    const hashBefore = await svc.app.db
      .selectFrom('users')
      .select('password_hash')
      .where('email', '=', 'boss@existing.example')
      .executeTakeFirstOrThrow();
    const created = await invite('existing.example');
    const memberLink = await signUp(created.body.token, 'member@existing.example');
    const asMember = await form(`/onboard/confirm/${memberLink}`, { decision: 'approve' });
    expect(asMember.status).toBe(403);
    expect(await asMember.text()).toContain('its owner or an admin must accept');
    const back = await onboard(created.body.token, 'boss@existing.example', 'approve');
    expect(back.searchParams.get('outcome')).toBe('approved');
    const brand = await svc.app.db
      .selectFrom('brands')
      .select(['account_id', 'verified'])
      .where('host', '=', 'existing.example')
      .executeTakeFirstOrThrow();
    expect(brand).toEqual({ account_id: client, verified: 1 });
    const hashAfter = await svc.app.db
      .selectFrom('users')
      .select('password_hash')
      .where('email', '=', 'boss@existing.example')
      .executeTakeFirstOrThrow();
    expect(hashAfter).toEqual(hashBefore);
  });

  it('a new account needs a password chosen on the consent page; mailbox-provider brands cannot be claimed', async () => {
    const created = await invite('needspassword.example');
    const link = await signUp(created.body.token, 'ceo@needspassword.example');
    const none = await form(`/onboard/confirm/${link}`, { decision: 'approve', password: '' });
    expect(none.status).toBe(400);
    expect(await none.text()).toContain('password: must be 8 to 1024 characters');
    const ok = await form(`/onboard/confirm/${link}`, {
      decision: 'approve',
      password: 'a long enough password',
    });
    expect(ok.status).toBe(303);

    // A mailbox provider's domain is refused when the invite is made, and at onboarding
    // for an invite made before that rule.
    const gmail = await invite('gmail.com');
    expect(gmail.status).toBe(400);
    expect(gmail.body.error).toContain('mailbox provider');
    const old = await invite('old-invite.example');
    await svc.app.db
      .updateTable('delegation_invites')
      .set({ brand_host: 'gmail.com' })
      .where('brand_host', '=', 'old-invite.example')
      .execute();
    const refused = await form(`/onboard/${old.body.token}/signup`, {
      email: 'anyone@gmail.com',
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('mailbox provider');
  });
});

describe('delegation invites', () => {
  it('the same token comes back while pending; a new one once it expired', async () => {
    const a = await invite('same.example');
    const b = await invite('same.example', w.keys.owner, 'https://partner.example/other');
    expect(b.body.token).toBe(a.body.token);
    expect(b.body.return_url).toBe('https://partner.example/other');
    await svc.app.db
      .updateTable('delegation_invites')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('brand_host', '=', 'same.example')
      .execute();
    const c = await invite('same.example');
    expect(c.body.token).not.toBe(a.body.token);
    const page = await fetch(`${svc.url}/onboard/${a.body.token}`);
    expect(page.status).toBe(410);
    expect(await page.text()).toContain('This invitation is expired');
    // Expiry defaults to 14 days.
    const days = (Date.parse(c.body.expires_at) - Date.now()) / 86_400_000;
    expect(Math.round(days)).toBe(14);
  });

  it('revokes a pending invite only: used, declined, expired and revoked answer 409', async () => {
    const pending = await invite('revoke-me.example');
    const revoke = (token: string) =>
      svc.request('DELETE', '/v1/delegation-invites', { key: w.keys.owner, query: { token } });
    expect((await revoke(pending.body.token)).body).toEqual({
      ok: true,
      token: pending.body.token,
      status: 'revoked',
    });
    expect(await revoke(pending.body.token)).toMatchObject({
      status: 409,
      body: { error: 'invite is revoked' },
    });
    expect((await fetch(`${svc.url}/onboard/${pending.body.token}`)).status).toBe(410);

    const used = await invite('used.example');
    await onboard(used.body.token, 'a@used.example', 'approve');
    expect((await revoke(used.body.token)).body).toEqual({ error: 'invite is used' });

    const declined = await invite('declined.example');
    const d = await form(`/onboard/${declined.body.token}/decline`, {});
    expect(new URL(d.headers.get('location')!).searchParams.get('outcome')).toBe('declined');
    expect((await revoke(declined.body.token)).body).toEqual({ error: 'invite is declined' });

    const expired = await invite('expired.example');
    await svc.app.db
      .updateTable('delegation_invites')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('brand_host', '=', 'expired.example')
      .execute();
    expect((await revoke(expired.body.token)).body).toEqual({ error: 'invite is expired' });

    // Another account's token, or a made-up one: not found.
    expect(
      (
        await svc.request('DELETE', '/v1/delegation-invites', {
          key: w.keys.other,
          query: { token: pending.body.token },
        })
      ).status,
    ).toBe(404);
    expect((await revoke(`inv_${'x'.repeat(43)}`)).status).toBe(404);
  });

  it('needs the agency plan, a full-scope key and an HTTPS return_url', async () => {
    expect((await invite('x1.example', w.keys.other)).status).toBe(403);
    expect((await invite('x1.example', w.keys.scopedNorthwind)).status).toBe(403);
    const http = await invite('x1.example', w.keys.owner, 'http://partner.example/back');
    expect(http.status).toBe(400);
    expect(http.body.error).toMatch(/^return_url: /);
    const own = await invite('northwind.example');
    expect(own.status).toBe(400);
    const active = await invite('acme.com');
    expect(active.status).toBe(409);
  });
});
