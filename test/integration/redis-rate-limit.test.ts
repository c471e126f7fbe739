import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brs, brsServe } from '../support/cli.js';
import { migratedDatabase, REDIS_URL } from '../support/databases.js';
import { PortalClient } from '../support/portal-client.js';

let env: Record<string, string>;
let drop: () => Promise<void>;
const servers: Awaited<ReturnType<typeof brsServe>>[] = [];

beforeAll(async () => {
  const db = await migratedDatabase();
  env = { DATABASE_URL: db.url, REDIS_URL };
  drop = db.drop;
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await drop();
});

describe('rate limit shared through Redis', () => {
  it('two server processes count one window per key', async () => {
    const account = (await brs(env, 'account', 'create', '--name', 'P', '--plan', 'partner')).out
      .account;
    const { key } = (
      await brs(env, 'key', 'create', '--account', account, '--role', 'owner', '--scope', 'full')
    ).out;
    servers.push(await brsServe(env), await brsServe(env));
    const statuses: number[] = [];
    for (let i = 0; i < 120; i++) {
      const res = await fetch(`${servers[i % 2]!.url}/v1/brands`, {
        headers: { 'x-api-key': key },
      });
      statuses.push(res.status);
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
    for (const s of servers) {
      const res = await fetch(`${s.url}/v1/brands`, { headers: { 'x-api-key': key } });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await res.json()).toEqual({ error: 'rate limit exceeded' });
    }
  });
});

describe('failed credentials counted through Redis', () => {
  it('two processes share the failure counts; valid credentials still get in from both', async () => {
    const lockEnv = { ...env, TRUST_PROXY: '1', AUTH_FAILURES_PER_MINUTE: '10' };
    const pair = [await brsServe(lockEnv), await brsServe(lockEnv)];
    servers.push(...pair);
    // Redis outlives test runs and is shared by both databases' runs: fresh names each time.
    const tag = `${Date.now().toString(36)}${randomInt(1e9).toString(36)}`;
    const at = () => ({ 'x-forwarded-for': `198.18.${randomInt(256)}.${randomInt(1, 255)}` });
    const account = (await brs(env, 'account', 'create', '--name', 'L', '--plan', 'partner')).out
      .account;
    const { key } = (
      await brs(env, 'key', 'create', '--account', account, '--role', 'owner', '--scope', 'full')
    ).out;
    const email = `lock-${tag}@lockout.example`;
    const password = 'correct horse battery';
    await brs(
      lockEnv,
      'user',
      'create',
      '--account',
      account,
      '--email',
      email,
      '--password',
      password,
      '--role',
      'owner',
    );

    const attacker = at();
    for (let i = 0; i < 10; i++) {
      const c = new PortalClient(pair[i % 2]!.url, attacker);
      expect((await c.signIn(email, `guess ${i}`)).status).toBe(401);
    }
    for (const s of pair) {
      expect((await new PortalClient(s.url, attacker).signIn(email, password)).status).toBe(429);
      // The person, from elsewhere, signs in on either process.
      expect((await new PortalClient(s.url, at()).signIn(email, password)).status).toBe(303);
    }
    // Successes are given back in Redis too: one address signs in past both limits.
    const office = at();
    for (let i = 0; i < 12; i++) {
      const c = new PortalClient(pair[i % 2]!.url, office);
      expect((await c.signIn(email, password)).status).toBe(303);
    }

    const nat = at();
    const get = (s: { url: string }, k: string) =>
      fetch(`${s.url}/v1/brands`, { headers: { 'x-api-key': k, ...nat } });
    for (let i = 0; i < 10; i++) {
      expect((await get(pair[i % 2]!, `brs_guessguessgu_${'x'.repeat(43)}`)).status).toBe(401);
    }
    for (const s of pair) {
      expect((await get(s, `brs_guessguessgu_${'y'.repeat(43)}`)).status).toBe(429);
      expect((await get(s, key)).status).toBe(200);
    }
  });
});
// Redis going away or going silent under a running server: test/integration/faults.test.ts.
