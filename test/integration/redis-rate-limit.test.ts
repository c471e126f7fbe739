import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brs, brsServe } from '../support/cli.js';
import { freshDatabase, REDIS_URL } from '../support/databases.js';

let env: Record<string, string>;
let drop: () => Promise<void>;
const servers: Awaited<ReturnType<typeof brsServe>>[] = [];

beforeAll(async () => {
  const db = await freshDatabase();
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

// Redis going away or going silent under a running server: test/integration/faults.test.ts.
