import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from '../support/cluster.js';
import { listToolsWith, signIn } from '../support/oauth-browser.js';
import { PortalClient } from '../support/portal-client.js';

/**
 * The service as several machines run it: three instances behind HAProxy (the shipped
 * deploy/haproxy.cfg), one PostgreSQL, one Redis. Whatever instance answers, the
 * service keeps its promises.
 */
let cluster: Cluster;
const OWNER = { email: 'owner@northwind.example', password: 'correct horse battery' };
const BRAND = 'northwind.example';

beforeAll(async () => {
  cluster = await startCluster();
}, 90_000);
afterAll(() => cluster?.stop());

const get = (base: string, path: string, key: string) =>
  fetch(`${base}${path}`, { headers: { 'x-api-key': key } });

describe('a cluster of three instances', () => {
  it('keeps one rate-limit window per key across instances: request 121 is 429, whoever answers', async () => {
    const key = cluster.world.keys.admin;
    const servedBy = new Set<string>();
    for (let i = 1; i <= 120; i++) {
      const res = await get(cluster.url, '/v1/brands', key);
      expect(res.status, `request ${i}`).toBe(200);
      servedBy.add(res.headers.get('x-served-by')!);
      await res.arrayBuffer();
    }
    expect([...servedBy].sort()).toEqual(['s1', 's2', 's3']);
    // The next request on every instance is over the limit, with the window's end.
    for (const instance of cluster.instances) {
      const over = await get(instance.url, '/v1/brands', key);
      expect(over.status, instance.name).toBe(429);
      const retry = Number(over.headers.get('retry-after'));
      expect(retry, instance.name).toBeGreaterThan(0);
      expect(retry, instance.name).toBeLessThanOrEqual(60);
    }
  });

  it('runs one Idempotency-Key once when two instances get it at once', async () => {
    const key = cluster.world.keys.owner;
    const story = cluster.world.stories.northwind;
    const unlock = await fetch(`${cluster.url}/v1/advisory`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ brand: BRAND, event_uri: story }),
    });
    expect(unlock.status).toBe(200);
    const share = (instance: { url: string }) =>
      fetch(`${instance.url}/v1/shares`, {
        method: 'POST',
        headers: {
          'x-api-key': key,
          'content-type': 'application/json',
          'idempotency-key': 'cluster-share-1',
        },
        body: JSON.stringify({ brand: BRAND, event_uri: story }),
      });
    const [a, b] = cluster.instances;
    const answers = await Promise.all([share(a!), share(b!)]);
    const bodies = await Promise.all(answers.map((r) => r.text()));
    const statuses = answers.map((r) => r.status);
    // One ran; the other got its answer, or was told it is in progress (409) and gets
    // the same answer when it retries.
    expect(statuses.filter((s) => s === 200)).not.toHaveLength(0);
    const winner = bodies[statuses.indexOf(200)]!;
    for (const [i, status] of statuses.entries()) {
      if (status === 409) {
        const again = await share(cluster.instances[i]!);
        expect(again.status).toBe(200);
        expect(await again.text()).toBe(winner);
      } else {
        expect(status).toBe(200);
        expect(bodies[i]).toBe(winner);
      }
    }
    const shares = await cluster.query((db) =>
      db
        .selectFrom('shares as s')
        .innerJoin('stories as t', 't.id', 's.story_id')
        .select('s.id')
        .where('t.event_uri', '=', story)
        .execute(),
    );
    expect(shares).toHaveLength(1);
  });

  it('takes an OAuth token issued through one instance on every other, and a revocation holds on all', async () => {
    // Each step of the sign-in goes to the next instance in turn.
    const { access_token, client_id } = await signIn(cluster.url, OWNER);
    const listTools = (base: string) => listToolsWith(base, access_token);
    for (const instance of cluster.instances) {
      expect((await listTools(instance.url)).status, instance.name).toBe(200);
    }
    const [first, ...others] = cluster.instances;
    const revoked = await fetch(`${first!.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: access_token, client_id }).toString(),
    });
    expect(revoked.status).toBe(200);
    for (const instance of others) {
      expect((await listTools(instance.url)).status, instance.name).toBe(401);
    }
  });

  it('keeps a portal session on every instance, and a sign-out ends it on all', async () => {
    const browser = new PortalClient(cluster.url);
    expect((await browser.signIn(OWNER.email, OWNER.password)).status).toBe(303);
    const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const app = (base: string) => fetch(`${base}/app`, { headers: { cookie }, redirect: 'manual' });
    for (const instance of cluster.instances) {
      expect((await app(instance.url)).status, instance.name).toBe(200);
    }
    await browser.get('/app');
    expect((await browser.post('/signout')).status).toBe(303);
    for (const instance of cluster.instances) {
      expect((await app(instance.url)).status, instance.name).toBe(303);
    }
  });
});
