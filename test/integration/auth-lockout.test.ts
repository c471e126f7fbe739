import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { startService, type TestService } from '../support/harness.js';
import { OAuthBrowser, signIn as oauthSignIn } from '../support/oauth-browser.js';
import { PortalClient } from '../support/portal-client.js';
import { seedWorld, type World } from '../support/world.js';

/**
 * Failed credentials slow guessing without becoming a way to lock others out: password
 * failures count per (address, email) and per address, never per email alone; keys and
 * tokens count failures per address, and a valid one always gets in. The service sits
 * behind a trusted proxy hop, so X-Forwarded-For names each client's address.
 */
let svc: TestService;
let w: World;
const PASSWORD = 'correct horse battery';
const PER_ADDRESS = 20;

beforeAll(async () => {
  svc = await startService(
    { TRUST_PROXY: '1', AUTH_FAILURES_PER_MINUTE: String(PER_ADDRESS) },
    { runJobs: false },
  );
  w = await seedWorld(svc.app);
});
afterAll(() => svc.close());

let addresses = 0;
/** A client address of its own (TEST-NET-3). */
const address = () => ({ 'x-forwarded-for': `203.0.113.${++addresses}` });

let users = 0;
async function newUser(): Promise<string> {
  const email = `person${++users}@lockout.example`;
  await addUser(svc.app, {
    accountId: await createAccount(svc.app, `Team ${users}`, 'pro'),
    email,
    password: PASSWORD,
    role: 'owner',
  });
  return email;
}

describe('portal sign-in', () => {
  it("a stranger's failures do not lock the person out; they slow only the stranger", async () => {
    const victim = await newUser();
    const attacker = new PortalClient(svc.url, address());
    for (let i = 0; i < 10; i++) {
      expect((await attacker.signIn(victim, `guess ${i}`)).status).toBe(401);
    }
    expect((await attacker.signIn(victim, 'guess 10')).status).toBe(429);
    // Even the right password waits from the failing address: that is what keeps guessing slow.
    const right = await attacker.signIn(victim, PASSWORD);
    expect(right.status).toBe(429);
    expect(right.headers.get('retry-after')).toBe('60');
    // The person, from their own address, signs in as always.
    const person = new PortalClient(svc.url, address());
    expect(await person.signIn(victim, PASSWORD)).toMatchObject({ status: 303, location: '/app' });
  });

  it('one address guessing across many emails stops at AUTH_FAILURES_PER_MINUTE', async () => {
    const sprayer = new PortalClient(svc.url, address());
    for (let i = 0; i < PER_ADDRESS; i++) {
      expect((await sprayer.signIn(`nobody${i}@lockout.example`, 'Winter2026!')).status).toBe(401);
    }
    expect((await sprayer.signIn(await newUser(), PASSWORD)).status).toBe(429);
  });

  it('strangers exhausting a shared address do not keep out a browser the person signed in with before', async () => {
    const office = address();
    const email = await newUser();
    const laptop = new PortalClient(svc.url, office);
    expect((await laptop.signIn(email, PASSWORD)).status).toBe(303);
    expect(laptop.cookies.has('brs_device')).toBe(true);
    // Strangers behind the same NAT spray wrong passwords until the address is over budget.
    const sprayer = new PortalClient(svc.url, office);
    for (let i = 0; i < PER_ADDRESS; i++) {
      expect((await sprayer.signIn(`nobody${i}@office.example`, 'Winter2026!')).status).toBe(401);
    }
    expect((await sprayer.signIn(`nobody@office.example`, 'Winter2026!')).status).toBe(429);
    // A browser that never signed in waits out the minute, right password or not.
    expect((await new PortalClient(svc.url, office).signIn(email, PASSWORD)).status).toBe(429);
    // The person's own browser is counted by itself and gets in.
    expect((await laptop.signIn(email, PASSWORD)).status).toBe(303);
    // Its cookie names that email only: as someone else it is a stranger's browser again.
    expect((await laptop.signIn(await newUser(), PASSWORD)).status).toBe(429);
    // And it is no way to guess faster: ten failures in a minute stop the device too.
    const stolen = new PortalClient(svc.url, address());
    stolen.cookies.set('brs_device', laptop.cookies.get('brs_device')!);
    for (let i = 0; i < 10; i++) {
      expect((await stolen.signIn(email, `guess ${i}`)).status).toBe(401);
    }
    expect((await stolen.signIn(email, PASSWORD)).status).toBe(429);
  });

  it('successful sign-ins do not count: a busy shared address keeps signing in', async () => {
    const office = address();
    const email = await newUser();
    for (let i = 0; i < PER_ADDRESS + 5; i++) {
      expect((await new PortalClient(svc.url, office).signIn(email, PASSWORD)).status).toBe(303);
    }
  });

  it('a burst of parallel guesses gets no more than the limit checked', async () => {
    const victim = await newUser();
    const burst = address();
    const attempts = await Promise.all(
      Array.from({ length: 15 }, async (_, i) => {
        const c = new PortalClient(svc.url, burst);
        await c.get('/signin');
        return (await c.post('/signin', { email: victim, password: `burst ${i}` })).status;
      }),
    );
    expect(attempts.filter((s) => s === 401)).toHaveLength(10);
    expect(attempts.filter((s) => s === 429)).toHaveLength(5);
  });
});

describe('OAuth sign-in (shares the portal counters)', () => {
  it("a stranger's failures on the OAuth page do not stop the person's agent signing in", async () => {
    const victim = await newUser();
    const from = address();
    const fail = (password: string) =>
      oauthSignIn(
        svc.url,
        { email: victim, password },
        new OAuthBrowser({ email: victim, password }, 'allow', from),
      ).catch((e: Error) => Number(/answered (\d+)/.exec(e.message)?.[1]));
    for (let i = 0; i < 10; i++) expect(await fail(`guess ${i}`)).toBe(401);
    expect(await fail(PASSWORD)).toBe(429);
    // The portal counts the same failures: the stranger's address waits there too.
    expect((await new PortalClient(svc.url, from).signIn(victim, PASSWORD)).status).toBe(429);
    const login = { email: victim, password: PASSWORD };
    const tokens = await oauthSignIn(svc.url, login, new OAuthBrowser(login, 'allow', address()));
    expect(tokens.access_token).toBeTruthy();
  });
});

describe('API keys and OAuth tokens', () => {
  const bad = `brs_guessguessgu_${'x'.repeat(43)}`;
  const brands = (key: string, from: Record<string, string>) =>
    svc.request('GET', '/v1/brands', { key, headers: from });
  const mcp = (token: string, from: Record<string, string>) =>
    svc.request('POST', '/mcp', {
      headers: {
        ...from,
        authorization: `Bearer ${token}`,
        accept: 'application/json, text/event-stream',
      },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });

  it('bad keys from a shared address get 429, and a valid key from it still works', async () => {
    const nat = address();
    for (let i = 0; i < PER_ADDRESS; i++) expect((await brands(bad, nat)).status).toBe(401);
    const over = await brands(bad, nat);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ error: 'rate limit exceeded' });
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await brands('not-even-a-key', nat)).status).toBe(429);
    const good = await brands(w.keys.owner, nat);
    expect(good.status).toBe(200);
    // Its own window applies as always.
    expect(good.headers.get('ratelimit-limit')).toBe('120');
    // Another address's budget is its own.
    expect((await brands(bad, address())).status).toBe(401);
  });

  it('a revoked key counts as a failure, and answers 429 past the budget', async () => {
    const from = address();
    for (let i = 0; i < PER_ADDRESS; i++) {
      expect((await brands(w.keys.revoked, from)).status).toBe(401);
    }
    expect((await brands(w.keys.revoked, from)).status).toBe(429);
  });

  it('bad tokens on /mcp get 429, and a valid token and key from that address still work', async () => {
    const login = { email: 'owner@northwind.example', password: PASSWORD };
    const { access_token } = await oauthSignIn(svc.url, login);
    const nat = address();
    const forged = 'A'.repeat(43);
    for (let i = 0; i < PER_ADDRESS; i++) expect((await mcp(forged, nat)).status).toBe(401);
    const over = await mcp(forged, nat);
    expect(over.status).toBe(429);
    // A JSON-RPC error for the request that names the wait (docs/api.md, MCP).
    expect(over.body).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32000, data: { error: 'rate limit exceeded', status: 429 } },
    });
    expect(over.body.error.data.retry_after).toBe(Number(over.headers.get('retry-after')));
    const good = await mcp(access_token, nat);
    expect(good.status).toBe(200);
    expect(good.text).toContain('tools');
    expect((await mcp(w.keys.owner, nat)).status).toBe(200);
  });
});
