import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { jobDefinitions } from '../../src/jobs/handlers.js';
import { requeueStalledDeliveries, retryDelayMs } from '../../src/webhooks/deliver.js';
import { addEndpoint, listDeliveries, rotateSecret } from '../../src/webhooks/endpoints.js';
import { startService, type TestService } from '../support/harness.js';
import { seedWorld, type World } from '../support/world.js';

/** Partner webhooks against a local receiver, verified with the standardwebhooks package. */
let svc: TestService;
let w: World;
let receiver: http.Server;
let base: string;

interface Received {
  path: string;
  id: string;
  type: string;
  body: string;
  headers: Record<string, string>;
}
/** Requests the receiver accepted (2xx), in order: its log. */
const accepted: Received[] = [];
/** How many requests each path has seen. */
const seen = new Map<string, number>();
/** path → statuses to answer, in order; the last one repeats. */
const script = new Map<string, number[]>();

beforeAll(async () => {
  receiver = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const path = req.url ?? '/';
    const n = seen.get(path) ?? 0;
    seen.set(path, n + 1);
    const statuses = script.get(path) ?? [204];
    const status = statuses[Math.min(n, statuses.length - 1)]!;
    if (status >= 200 && status < 300) {
      accepted.push({
        path,
        id: String(req.headers['webhook-id']),
        type: JSON.parse(body).type,
        body,
        headers: req.headers as Record<string, string>,
      });
    }
    res.writeHead(status).end();
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const port = (receiver.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  svc = await startService(
    { FETCH_ALLOW_HOSTS: `127.0.0.1:${port}`, WEBHOOK_RETRY_BASE_MS: '20' },
    { runJobs: false },
  );
  w = await seedWorld(svc.app);
});
afterAll(async () => {
  receiver.close();
  await svc.close();
});

/** Runs jobs until no delivery is pending (retries are due within milliseconds here). */
async function settle(app = svc.app) {
  for (let i = 0; i < 200; i++) {
    await app.jobs.drain();
    const pending = await app.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      .execute();
    if (pending.length === 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('deliveries did not settle');
}

const publishNote = (brand: string, event_uri: string, key = w.keys.owner) =>
  svc.request('POST', '/v1/brand-note', {
    key,
    body: { brand, event_uri, text: 'Our statement.' },
  });

describe('webhook endpoints', () => {
  it('refuses private, loopback, link-local and non-HTTPS targets when registered', async () => {
    for (const url of [
      'http://partner.example/hook',
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'https://10.0.0.8/hook',
      'https://192.168.1.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hook',
      'https://[::ffff:10.0.0.1]/hook',
      'https://[::127.0.0.1]/hook',
      'https://[::a9fe:a9fe]/hook',
      'https://[64:ff9b::a00:1]/hook',
      'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook',
      'https://2130706433/hook',
      'https://0x7f000001/hook',
      'https://user:pass@partner.example/hook',
      'not a url',
    ]) {
      await expect(
        addEndpoint(svc.app, { accountId: w.accounts.agency, url, events: ['*'], actor: 'test' }),
        url,
      ).rejects.toMatchObject({ status: 400 });
    }
    await expect(
      addEndpoint(svc.app, {
        accountId: w.accounts.agency,
        url: `${base}/ok`,
        events: ['story.exploded'],
        actor: 'test',
      }),
    ).rejects.toThrow(/unknown event type story.exploded/);
  });
});

describe('deliveries', () => {
  it('are signed by the Standard Webhooks scheme and verify with its own verifier', async () => {
    const ep = await addEndpoint(svc.app, {
      accountId: w.accounts.agency,
      url: `${base}/ok`,
      events: ['brand_note.published'],
      actor: 'test',
    });
    const r = await publishNote('northwind.example', w.stories.northwind);
    expect(r.status).toBe(200);
    await settle();
    const got = accepted.filter((a) => a.path === '/ok');
    expect(got.length).toBe(1);
    const verified = new Webhook(ep.secret).verify(got[0]!.body, got[0]!.headers) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(verified).toMatchObject({
      type: 'brand_note.published',
      data: { brand: 'northwind.example', event_uri: w.stories.northwind },
    });
    // Only subscribed types arrive.
    await svc.request('DELETE', '/v1/brand-note', {
      key: w.keys.owner,
      query: { brand: 'northwind.example', event_uri: w.stories.northwind },
    });
    await settle();
    expect(accepted.filter((a) => a.path === '/ok').length).toBe(1);
  });

  it('a receiver failing three times then succeeding logs the event exactly once per webhook-id; every attempt is recorded', async () => {
    script.set('/flaky', [500, 503, 500, 200]);
    const ep = await addEndpoint(svc.app, {
      accountId: w.accounts.agency,
      url: `${base}/flaky`,
      events: ['*'],
      actor: 'test',
    });
    const story = await w.story('northwind.example', 500);
    await settle();
    const got = accepted.filter((a) => a.path === '/flaky');
    expect(got.map((g) => g.type)).toEqual(['story.created']);
    expect(seen.get('/flaky')).toBe(4);
    const deliveries = await listDeliveries(svc.app, w.accounts.agency, 50);
    // This endpoint's delivery: other tests' endpoints may take the same event.
    const d = deliveries.find((x) => x.event_id === got[0]!.id && x.endpoint_id === ep.id)!;
    expect(d.status).toBe('delivered');
    expect(d.attempts).toBe(4);
    expect(d.attempt_log.map((a) => a.status_code)).toEqual([500, 503, 500, 200]);
    expect(story).toBeTruthy();
  });

  it('a 410 disables the endpoint: nothing more is sent to it', async () => {
    script.set('/gone', [410]);
    const ep = await addEndpoint(svc.app, {
      accountId: w.accounts.agency,
      url: `${base}/gone`,
      events: ['*'],
      actor: 'test',
    });
    await w.story('northwind.example', 501);
    await settle();
    const row = await svc.app.db
      .selectFrom('webhook_endpoints')
      .select('disabled_at')
      .where('id', '=', ep.id)
      .executeTakeFirstOrThrow();
    expect(row.disabled_at).not.toBeNull();
    const before = seen.get('/gone');
    await w.story('northwind.example', 502);
    await settle();
    expect(seen.get('/gone')).toBe(before);
  });

  it('a restart in the middle of retries loses nothing', async () => {
    script.set('/restart', [500, 200]);
    await addEndpoint(svc.app, {
      accountId: w.accounts.agency,
      url: `${base}/restart`,
      events: ['story.created'],
      actor: 'test',
    });
    await w.story('northwind.example', 503);
    // The first attempt fails and the next one is scheduled a minute out; then the process
    // "dies": its runner runs nothing more, and a new process on the same database, once
    // the minute has passed, takes over.
    svc.app.config.webhookRetryBaseMs = 60_000;
    try {
      await svc.app.jobs.drain();
    } finally {
      svc.app.config.webhookRetryBaseMs = 20;
    }
    expect(seen.get('/restart')).toBe(1);
    const past = new Date(Date.now() - 1000).toISOString();
    await svc.app.db
      .updateTable('jobs')
      .set({ run_at: past })
      .where('status', '=', 'queued')
      .execute();
    const restarted = await createContext(svc.app.config);
    restarted.jobs.register(jobDefinitions);
    try {
      await settle(restarted);
    } finally {
      await restarted.close();
    }
    expect(accepted.filter((a) => a.path === '/restart').length).toBe(1);
  });

  it('a rotated secret: both signatures for a day, so receivers switch without a gap', async () => {
    const ep = await addEndpoint(svc.app, {
      accountId: w.accounts.agency,
      url: `${base}/rotate`,
      events: ['story.created'],
      actor: 'test',
    });
    const rotated = await rotateSecret(svc.app, ep.id);
    await w.story('northwind.example', 504);
    await settle();
    const got = accepted.find((a) => a.path === '/rotate')!;
    expect(got.headers['webhook-signature']!.split(' ').length).toBe(2);
    expect(() => new Webhook(ep.secret).verify(got.body, got.headers)).not.toThrow();
    expect(() => new Webhook(rotated.secret).verify(got.body, got.headers)).not.toThrow();
  });

  it('events of a delegated brand reach the partner while the delegation is active, and stop with the drop', async () => {
    await addEndpoint(svc.app, {
      accountId: w.accounts.agency,
      url: `${base}/partner`,
      events: ['*'],
      actor: 'test',
    });
    await w.story('acme.com', 505);
    await settle();
    expect(accepted.filter((a) => a.path === '/partner').map((a) => a.type)).toEqual([
      'story.created',
    ]);
    const drop = await svc.request('DELETE', '/v1/delegations', {
      key: w.keys.owner,
      query: { brand: 'acme.com' },
    });
    expect(drop.status).toBe(200);
    await w.story('acme.com', 506);
    await settle();
    // The drop itself is announced to the partner; the client's stories no longer are.
    expect(accepted.filter((a) => a.path === '/partner').map((a) => a.type)).toEqual([
      'story.created',
      'delegation.dropped',
    ]);
  });

  it('a delivery still being retried when the delegation is dropped is cancelled, not sent again', async () => {
    // (Later tests' events reach this endpoint too: it accepts them.)
    script.set('/retrying-partner', [500, 204]);
    const ep = await addEndpoint(svc.app, {
      accountId: w.accounts.agency,
      url: `${base}/retrying-partner`,
      events: ['story.created'],
      actor: 'test',
    });
    const host = await w.clientBrand();
    await w.story(host, 507);
    // The retry is scheduled a minute out, so it cannot come due (at this suite's 20 ms
    // base, within the drain on a slow machine) before the delegation is dropped.
    svc.app.config.webhookRetryBaseMs = 60_000;
    try {
      await svc.app.jobs.drain();
    } finally {
      svc.app.config.webhookRetryBaseMs = 20;
    }
    expect(seen.get('/retrying-partner')).toBe(1);
    const drop = await svc.request('DELETE', '/v1/delegations', {
      key: w.keys.owner,
      query: { brand: host },
    });
    expect(drop.status).toBe(200);
    // Then it is due, runs, and finds its delivery no longer routed.
    await svc.app.db
      .updateTable('jobs')
      .set({ run_at: new Date(Date.now() - 1000).toISOString() })
      .where('status', '=', 'queued')
      .execute();
    await settle();
    expect(seen.get('/retrying-partner')).toBe(1);
    const [d] = (await listDeliveries(svc.app, w.accounts.agency, 50)).filter(
      (x) => x.endpoint_id === ep.id,
    );
    expect(d).toMatchObject({
      status: 'cancelled',
      attempts: 1,
      last_error: 'no longer routed: the delegation ended',
    });
  });
});

describe('stalled deliveries', () => {
  it('a pending delivery with no job behind it is put back by the sweep', async () => {
    await addEndpoint(svc.app, {
      accountId: w.accounts.agency,
      url: `${base}/stalled`,
      events: ['story.created'],
      actor: 'test',
    });
    await w.story('northwind.example', 507);
    // Its job is lost (as when a crash loop used up the job's attempts).
    await svc.app.db
      .deleteFrom('jobs')
      .where('name', '=', 'webhook.deliver')
      .where('status', '=', 'queued')
      .execute();
    await svc.app.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: new Date(Date.now() - 3_600_000).toISOString() })
      .where('status', '=', 'pending')
      .execute();
    expect(await requeueStalledDeliveries(svc.app)).toBeGreaterThanOrEqual(1);
    expect(await requeueStalledDeliveries(svc.app)).toBe(0);
    await settle();
    expect(accepted.filter((a) => a.path === '/stalled').length).toBe(1);
  });
});

describe('retry schedule', () => {
  it('backs off exponentially with jitter, capped at 12 hours, for about three days', () => {
    const base = 30_000;
    expect(retryDelayMs(base, 1, 0.5)).toBe(30_000);
    expect(retryDelayMs(base, 2, 0.5)).toBe(60_000);
    expect(retryDelayMs(base, 1, 0)).toBe(22_500);
    expect(retryDelayMs(base, 1, 1)).toBe(37_500);
    expect(retryDelayMs(base, 30, 0.5)).toBe(12 * 3_600_000);
    let total = 0;
    let attempts = 1;
    while (total < 3 * 24 * 3_600_000) total += retryDelayMs(base, attempts++, 0.5);
    expect(attempts).toBeGreaterThan(12);
    expect(attempts).toBeLessThan(20);
  });
});
