import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { completeSignUp, signUp } from '../../src/domain/sign-up.js';
import { listOutbox } from '../../src/email/outbox.js';
import { startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';

/** Signing up, in and out, confirming, resetting; CSRF, fixation and open redirects. */
let svc: TestService;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  svc = await startService({}, { runJobs: false });
  const a = await createAccount(svc.app, 'Alpha', 'pro');
  const b = await createAccount(svc.app, 'Beta', 'partner');
  await addUser(svc.app, {
    accountId: a,
    email: 'both@example.org',
    password: PASSWORD,
    role: 'owner',
  });
  await addUser(svc.app, {
    accountId: b,
    email: 'both@example.org',
    password: null,
    role: 'member',
  });
});
afterAll(async () => {
  await svc.close();
});

let users = 0;
/** A confirmed user of an account of their own: sign-ins are limited per email. */
async function newUser(): Promise<string> {
  const email = `user${++users}@example.org`;
  await addUser(svc.app, {
    accountId: await createAccount(svc.app, `Team ${users}`, 'pro'),
    email,
    password: PASSWORD,
    role: 'owner',
  });
  return email;
}

const lastLink = async (to: string, path: string) => {
  const mail = (await listOutbox(svc.app, 50)).find((m) => m.to === to);
  const m = new RegExp(`${svc.url}(${path}/[^\\s]+)`).exec(mail?.text ?? '');
  if (!m) throw new Error(`no ${path} link mailed to ${to}`);
  return m[1]!;
};

describe('portal sign-in', () => {
  it('sends a visitor without a session to sign in and back where they were going', async () => {
    const c = new PortalClient(svc.url);
    const r = await c.get('/app/keys');
    expect(r.status).toBe(303);
    expect(r.location).toBe('/signin?next=%2Fapp%2Fkeys');
    const signedIn = await c.signIn(await newUser(), PASSWORD, '/app/keys');
    expect(signedIn).toMatchObject({ status: 303, location: '/app/keys' });
  });

  it('refuses a wrong password without saying which part was wrong', async () => {
    const c = new PortalClient(svc.url);
    const r = await c.signIn(await newUser(), 'wrong password!');
    expect(r.status).toBe(401);
    expect(r.html).toContain('That email and password do not match.');
    expect(c.cookies.has('brs_session')).toBe(false);
    const unknown = await c.signIn('nobody@example.org', PASSWORD);
    expect(unknown.html).toContain('That email and password do not match.');
  });

  it('answers a NUL in any form field with a 400 page, on every form, signed in or not', async () => {
    for (const path of ['/signin', '/reset', '/signup']) {
      const r = await fetch(`${svc.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'email=a%00b%40example.org&password=x',
      });
      expect(r.status, path).toBe(400);
      expect(await r.text()).toContain('NUL characters are not allowed');
    }
  });

  it('goes only to paths of this site after sign-in (no open redirect)', async () => {
    for (const next of [
      '//evil.example/x',
      'https://evil.example/',
      '/\\evil.example',
      'javascript:alert(1)',
    ]) {
      const c = new PortalClient(svc.url);
      const r = await c.signIn('both@example.org', PASSWORD, next);
      expect(r.location, next).toBe('/app');
    }
  });

  it('makes a new session at sign-in: a planted cookie never becomes one (no fixation)', async () => {
    const c = new PortalClient(svc.url);
    await c.get('/signin');
    c.cookies.set('brs_session', 'A'.repeat(43));
    const email = await newUser();
    await c.signIn(email, PASSWORD);
    const session = c.cookies.get('brs_session');
    expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session).not.toBe('A'.repeat(43));
    // The old session of the same browser ends when a new one starts.
    const first = session!;
    await c.signIn(email, PASSWORD);
    const other = new PortalClient(svc.url);
    other.cookies.set('brs_session', first);
    expect((await other.get('/app')).status).toBe(303);
  });

  it('refuses a form without the anti-forgery token, or with another browser’s, or from another origin', async () => {
    const c = new PortalClient(svc.url);
    await c.signIn(await newUser(), PASSWORD);
    await c.get('/app');
    expect((await c.post('/signout', {}, { csrf: false })).status).toBe(403);
    const stranger = new PortalClient(svc.url);
    await stranger.get('/signin');
    const foreign = /name="_csrf" value="([^"]+)"/.exec((await stranger.get('/signin')).html)![1]!;
    expect((await c.post('/signout', {}, { csrf: foreign })).status).toBe(403);
    expect((await c.post('/signout', {}, { origin: 'https://evil.example' })).status).toBe(403);
    // Still signed in: nothing happened.
    expect((await c.get('/app')).status).toBe(200);
    // Sign-in itself needs the token too (no login CSRF).
    const d = new PortalClient(svc.url);
    const r = await d.post(
      '/signin',
      { email: 'both@example.org', password: PASSWORD },
      { csrf: false },
    );
    expect(r.status).toBe(403);
  });

  it('switches between the accounts of a person in several, and signs out', async () => {
    const c = new PortalClient(svc.url);
    await c.signIn('both@example.org', PASSWORD);
    const home = await c.get('/app');
    expect(home.html).toContain('<option value="');
    expect(home.html).toMatch(/<option value="acc_[^"]+" selected>Alpha<\/option>/);
    const beta = /<option value="(acc_[^"]+)">Beta<\/option>/.exec(home.html)![1]!;
    expect((await c.post('/app/switch', { account: beta })).location).toBe('/app?done=switched');
    expect((await c.get('/app')).html).toMatch(/<option value="acc_[^"]+" selected>Beta<\/option>/);
    // An account the person is not in is not a way in.
    const other = await createAccount(svc.app, 'Gamma', 'pro');
    expect((await c.post('/app/switch', { account: other })).status).toBe(404);
    const out = await c.post('/signout');
    expect(out.location).toBe('/signin?done=out');
    expect((await c.get('/app')).status).toBe(303);
  });

  it('limits sign-in attempts per email: the eleventh in a minute waits', async () => {
    const email = await newUser();
    const c = new PortalClient(svc.url);
    for (let i = 0; i < 10; i++)
      expect((await c.signIn(email, 'wrong password!')).status).toBe(401);
    const r = await c.signIn(email, PASSWORD);
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('60');
    expect(r.html).toContain('Too many attempts');
  });

  it('sets the session cookie HttpOnly and SameSite, and security headers on pages', async () => {
    const c = new PortalClient(svc.url);
    await c.get('/signin');
    const r = await c.post('/signin', { email: await newUser(), password: PASSWORD });
    const cookie = r.headers.getSetCookie().find((s) => s.startsWith('brs_session='))!;
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    const page = await c.get('/app');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
  });
});

describe('sign-up, confirmation and password reset', () => {
  it('creates a team when the emailed link is opened and a password chosen there, once', async () => {
    const c = new PortalClient(svc.url);
    await c.get('/signup');
    const r = await c.post('/signup', {
      team: 'Initech',
      email: 'Founder@Initech.example',
      plan: 'partner',
    });
    expect(r.status).toBe(200);
    expect(r.html).toContain('Check your email');
    // Nothing exists before the link is used.
    expect(
      await svc.app.db.selectFrom('accounts').select('id').where('name', '=', 'Initech').execute(),
    ).toEqual([]);
    const link = await lastLink('founder@initech.example', '/signup/confirm');
    // Opening the link creates nothing either: a mail scanner may open it.
    const opened = await c.get(link);
    expect(opened.status).toBe(200);
    expect(opened.html).toContain('Choose the password for your team <strong>Initech</strong>');
    expect((await c.post(link, { password: 'short' })).status).toBe(400);
    const made = await c.post(link, { password: 'a long enough password' });
    expect(made).toMatchObject({ status: 303, location: '/app/brands?done=welcome' });
    expect((await c.get('/app')).html).toContain('Initech');
    // The link works once: afterwards it is neither a way in nor a second team.
    const other = new PortalClient(svc.url);
    expect((await other.get(link)).status).toBe(200);
    expect((await other.post(link, { password: 'another long password' })).status).toBe(400);
    const d = new PortalClient(svc.url);
    expect((await d.signIn('founder@initech.example', 'a long enough password')).status).toBe(303);
  });

  it('gives someone who signs up with another person’s address no way into that person’s team', async () => {
    const attacker = new PortalClient(svc.url);
    await attacker.get('/signup');
    await attacker.post('/signup', { team: 'Trap', email: 'victim@example.org', plan: 'starter' });
    const victim = new PortalClient(svc.url);
    await victim.get('/signup');
    await victim.post('/signup', {
      team: 'Victim Co',
      email: 'victim@example.org',
      plan: 'starter',
    });
    // Both links reach only the victim's mailbox; the victim uses theirs, with their password.
    const mails = (await listOutbox(svc.app, 100)).filter((m) => m.to === 'victim@example.org');
    const links = mails.map(
      (m) => new RegExp(`${svc.url}(/signup/confirm/[^\\s]+)`).exec(m.text)![1]!,
    );
    expect(links).toHaveLength(2);
    const victimLink = links[0]!;
    await victim.get(victimLink);
    expect((await victim.post(victimLink, { password: 'the victim password' })).status).toBe(303);
    for (const l of links) {
      const again = new PortalClient(svc.url);
      await again.get('/signin');
      expect((await again.post(l, { password: 'attacker password!' })).status).toBe(400);
    }
    expect(
      (await new PortalClient(svc.url).signIn('victim@example.org', 'attacker password!')).status,
    ).toBe(401);
  });

  it('takes the same link used twice at once without an error: one team', async () => {
    await signUp(svc.app, { team: 'Twice', email: 'twice@example.org', plan: 'starter' });
    const link = await lastLink('twice@example.org', '/signup/confirm');
    const token = link.split('/').at(-1)!;
    const made = await Promise.all([
      completeSignUp(svc.app, token, 'a long enough password'),
      completeSignUp(svc.app, token, 'a long enough password'),
    ]);
    expect(made.filter(Boolean)).toHaveLength(1);
    const users = await svc.app.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'twice@example.org')
      .execute();
    expect(users).toHaveLength(1);
  });

  it('refuses a bad email with the field named, creating nothing', async () => {
    const c = new PortalClient(svc.url);
    await c.get('/signup');
    const bad = await c.post('/signup', { team: 'X Team', email: 'not-an-email', plan: 'starter' });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('Email: must be an email address');
  });

  it('answers the same for an address that has an account, and tells its owner instead', async () => {
    const c = new PortalClient(svc.url);
    await c.get('/signup');
    const r = await c.post('/signup', { team: 'Copy', email: 'both@example.org', plan: 'starter' });
    expect(r.html).toContain('Check your email');
    const mail = (await listOutbox(svc.app, 50)).find((m) => m.to === 'both@example.org');
    expect(mail?.subject).toBe('Someone tried to sign up with your address');
    expect((await c.signIn('both@example.org', PASSWORD)).status).toBe(303);
  });

  it('does not let password-reset requests lock a person out of signing in', async () => {
    const email = await newUser();
    const stranger = new PortalClient(svc.url);
    for (let i = 0; i < 5; i++) {
      await stranger.get('/reset');
      await stranger.post('/reset', { email });
    }
    // The reset form has its own limit, and the person still signs in.
    expect((await stranger.post('/reset', { email })).status).toBe(429);
    const person = new PortalClient(svc.url);
    expect((await person.signIn(email, PASSWORD)).status).toBe(303);
    // Nor hold back the reset the person asks for from a browser they signed in with.
    const before = (await listOutbox(svc.app, 200)).filter((m) => m.to === email).length;
    await person.get('/reset');
    expect((await person.post('/reset', { email })).status).toBe(200);
    const after = (await listOutbox(svc.app, 200)).filter((m) => m.to === email).length;
    expect(after).toBe(before + 1);
  });

  it('resets a password by emailed link, once, ending the other sessions', async () => {
    // A person of its own: the new password must not reach the other tests' sign-ins.
    const email = await newUser();
    const elsewhere = new PortalClient(svc.url);
    await elsewhere.signIn(email, PASSWORD);
    const c = new PortalClient(svc.url);
    await c.get('/reset');
    expect((await c.post('/reset', { email: email })).html).toContain(
      'If an account uses that address',
    );
    const link = await lastLink(email, '/reset');
    expect((await c.get(link)).status).toBe(200);
    const tooShort = await c.post(link, { password: 'short' });
    expect(tooShort.status).toBe(400);
    const done = await c.post(link, { password: 'a brand new password' });
    expect(done.location).toBe('/signin?done=reset');
    expect((await c.get(link)).status).toBe(400);
    expect((await elsewhere.get('/app')).status).toBe(303);
    expect((await c.signIn(email, PASSWORD)).status).toBe(401);
    expect((await c.signIn(email, 'a brand new password')).status).toBe(303);
  });
});
