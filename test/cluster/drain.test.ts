import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addEndpoint } from '../../src/webhooks/endpoints.js';
import { type Cluster, startCluster } from '../support/cluster.js';

/**
 * Stopping an instance (SIGTERM) behind the balancer fails nothing: /readyz turns 503 and
 * HAProxy takes the instance out of rotation while it still answers (SHUTDOWN_DELAY_MS),
 * then it finishes the request in flight and the job in hand, and exits 0.
 */
let cluster: Cluster;
let receiver: http.Server;
/** Webhook deliveries the receiver got, by webhook-id. */
const received = new Map<string, number>();
/** Each delivery is held this long before its 204: the job is in hand at SIGTERM. */
const HOLD_MS = 3000;

beforeAll(async () => {
  receiver = http.createServer(async (req, res) => {
    for await (const _ of req);
    const id = String(req.headers['webhook-id']);
    received.set(id, (received.get(id) ?? 0) + 1);
    setTimeout(() => res.writeHead(204).end(), HOLD_MS);
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const port = (receiver.address() as AddressInfo).port;
  cluster = await startCluster({
    FETCH_ALLOW_HOSTS: `127.0.0.1:${port}`,
    SHUTDOWN_DELAY_MS: '2500',
    JOB_POLL_MS: '100',
    RATE_LIMIT_PER_MINUTE: '100000',
  });
  await cluster.query((_db, app) =>
    addEndpoint(app, {
      accountId: cluster.world.accounts.agency,
      url: `http://127.0.0.1:${port}/hooks`,
      events: ['brand_note.published'],
      actor: 'test',
    }),
  );
}, 90_000);
afterAll(async () => {
  await cluster?.stop();
  receiver?.close();
});

it('drains a stopping instance: no failed request, the request in flight and the job in hand finish', {
  timeout: 60_000,
}, async () => {
  const key = cluster.world.keys.owner;
  const story = cluster.world.stories.northwind;

  // Steady traffic through the balancer, before, during and after the stop.
  const statuses = new Map<number, number>();
  let running = true;
  const load = async () => {
    while (running) {
      // A connection cut off counts as status 0.
      const status = await fetch(`${cluster.url}/v1/brands`, { headers: { 'x-api-key': key } })
        .then(async (res) => {
          await res.arrayBuffer();
          return res.status;
        })
        .catch(() => 0);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  const loads = Array.from({ length: 4 }, load);

  // A brand note's webhook: its delivery job is claimed by some instance, which is held
  // by the receiver; that instance is the one stopped.
  const note = await fetch(`${cluster.url}/v1/brand-note`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ brand: 'northwind.example', event_uri: story, text: 'Our statement.' }),
  });
  expect(note.status).toBe(200);
  let jobId: string | undefined;
  for (let i = 0; i < 100 && !jobId; i++) {
    const running = await cluster.query((db) =>
      db
        .selectFrom('jobs')
        .select('id')
        .where('name', '=', 'webhook.deliver')
        .where('status', '=', 'running')
        .executeTakeFirst(),
    );
    jobId = running?.id;
    if (!jobId) await new Promise((r) => setTimeout(r, 50));
  }
  const victim = await cluster.holderOf(jobId!);
  expect(victim, 'the instance holding the delivery').toBeDefined();

  // A request in flight on that instance when it is told to stop: its body arrives late.
  const inFlight = new Promise<number>((resolve, reject) => {
    const req = http.request(`${victim!.url}/v1/brand-note`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    const body = JSON.stringify({ brand: 'northwind.example', event_uri: story, text: 'Later.' });
    req.write(body.slice(0, 10));
    setTimeout(() => req.end(body.slice(10)), 1000);
  });
  const exited = once(victim!.child, 'exit');
  victim!.child.kill('SIGTERM');

  expect(await inFlight).toBe(200);
  const [code] = await exited;
  expect(code, 'a drained instance exits 0').toBe(0);
  await new Promise((r) => setTimeout(r, 1000));
  running = false;
  await Promise.all(loads);

  // Every request answered 200, whichever instance got it, during the whole stop.
  expect([...statuses.keys()]).toEqual([200]);
  expect(statuses.get(200)).toBeGreaterThan(50);
  // The delivery in hand finished on the stopping instance: delivered once, not again.
  const job = await cluster.query((db) =>
    db
      .selectFrom('jobs')
      .select(['status', 'attempts', 'payload'])
      .where('id', '=', jobId!)
      .executeTakeFirstOrThrow(),
  );
  expect(job).toMatchObject({ status: 'done', attempts: 1 });
  const delivery = await cluster.deliveryOf(job);
  expect(delivery).toMatchObject({ status: 'delivered', attempts: 1 });
  expect(received.get(delivery.event_id)).toBe(1);
});
