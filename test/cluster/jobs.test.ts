import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.js';
import { createAccount } from '../../src/domain/accounts.js';
import { subscribe } from '../../src/domain/billing-admin.js';
import { addBrand, requireBrandByHost } from '../../src/domain/brands.js';
import { grantDelegation } from '../../src/domain/delegations.js';
import { addFeed } from '../../src/domain/feeds.js';
import { importStory } from '../../src/domain/import-story.js';
import { addEndpoint } from '../../src/webhooks/endpoints.js';
import { type Cluster, startCluster } from '../support/cluster.js';
import { type StripeDouble, startStripeDouble } from '../support/stripe-double.js';
import { article } from '../support/world.js';

/**
 * Background jobs in a cluster of three instances: every kind (story from URL, feed
 * polls, webhook deliveries, the client-brands billing recalculation, proposals) runs
 * exactly once whichever instance claims it, also when the instance that claimed it is
 * killed in the middle of it. Everything outside (news pages, a feed, a webhook
 * receiver, the model, Stripe) is a local server that counts what it is sent and can
 * hold a request unanswered, so a job is caught mid-way.
 */
let cluster: Cluster;
let outside: http.Server;
let base: string;
let stripe: StripeDouble;
const BRAND = 'northwind.example';
const LEASE_MS = 3000;
/** The receiver fails this brand's deliveries: they wait for their retry. */
const FAILING_BRAND = 'client-dropped.example';

type Stage = 'page' | 'feed' | 'hook' | 'llm';
/** Requests received, by path (pages, the feed) or webhook-id (deliveries). */
const requests = new Map<string, number>();
/** Webhook deliveries answered 2xx, by webhook-id. */
const delivered = new Map<string, number>();
/** The next request of each of these stages is held unanswered (then this is cleared). */
const holdNext = new Set<Stage>();
const held: Stage[] = [];
let feedItems: string[] = [];

const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
const articlePage = (n: string) => `<!doctype html><html lang="en"><head>
<title>Northwind dispute ${n} | The Ledger</title>
<meta property="og:site_name" content="The Ledger"></head><body><article>
<h1>Northwind dispute ${n}</h1>${[1, 2, 3, 4]
  .map(
    (i) =>
      `<p>Paragraph ${i} of report ${n}. Northwind said on Tuesday that its supply contracts with three regional distributors will be renegotiated after a dispute over late deliveries reached the courts.</p>`,
  )
  .join('')}</article></body></html>`;
const advice = {
  assessment: 'threat',
  urgency: 'high',
  executive_summary: [{ text: 'The dispute reached the courts.', cites: ['s1'] }],
  phases: [
    { title: 'Confirm the facts', actions: ['Call the distributors'] },
    { title: 'Answer the press', actions: ['Publish a statement'] },
    { title: 'Follow up', actions: ['Brief the board'] },
  ],
};

function stageOf(path: string): Stage {
  if (path.startsWith('/hooks')) return 'hook';
  if (path.startsWith('/llm')) return 'llm';
  return path === '/feed.xml' ? 'feed' : 'page';
}

beforeAll(async () => {
  outside = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const path = req.url ?? '/';
    const stage = stageOf(path);
    const id = stage === 'hook' ? String(req.headers['webhook-id']) : path;
    count(requests, id);
    if (holdNext.delete(stage)) {
      held.push(stage);
      return; // never answered: the instance waiting for it is killed
    }
    if (stage === 'hook' && JSON.parse(body).data?.brand === FAILING_BRAND) {
      res.writeHead(500).end();
    } else if (stage === 'hook') {
      count(delivered, id);
      res.writeHead(204).end();
    } else if (stage === 'llm') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: JSON.stringify(advice) },
              finish_reason: 'stop',
            },
          ],
        }),
      );
    } else if (stage === 'feed') {
      const items = feedItems.map(
        (p) => `<item><title>${p}</title><link>${base}${p}</link><guid>${p}</guid></item>`,
      );
      res
        .writeHead(200, { 'content-type': 'application/rss+xml' })
        .end(`<rss version="2.0"><channel><title>Ledger</title>${items.join('')}</channel></rss>`);
    } else {
      res.writeHead(200, { 'content-type': 'text/html' }).end(articlePage(path));
    }
  });
  outside.listen(0, '127.0.0.1');
  await once(outside, 'listening');
  const host = `127.0.0.1:${(outside.address() as AddressInfo).port}`;
  base = `http://${host}`;
  stripe = await startStripeDouble();
  cluster = await startCluster({
    FETCH_ALLOW_HOSTS: host,
    JOB_POLL_MS: '100',
    JOB_LEASE_MS: String(LEASE_MS),
    JOB_RETRY_BASE_MS: '200',
    WEBHOOK_RETRY_BASE_MS: '2000',
    FEED_POLL_MS: '1000',
    RATE_LIMIT_PER_MINUTE: '100000',
    LLM_BASE_URL: `${base}/llm/v1`,
    LLM_API_KEY: 'sk-test',
    LLM_MODEL: 'test-model',
    LLM_RETRIES: '0',
    BILLING: 'stripe',
    STRIPE_SECRET_KEY: 'sk_test_double',
    STRIPE_WEBHOOK_SECRET: 'whsec_test',
    STRIPE_API_URL: stripe.url,
  });
  await cluster.query(async (_db, app) => {
    await addEndpoint(app, {
      accountId: cluster.world.accounts.agency,
      url: `${base}/hooks`,
      events: ['*'],
      actor: 'test',
    });
    await subscribe(app, cluster.world.accounts.agency, 'test', 'cus_northwind');
  });
}, 90_000);
afterAll(async () => {
  await cluster?.stop();
  await stripe?.close();
  outside?.close();
});

const post = (path: string, body: object) =>
  fetch(`${cluster.url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': cluster.world.keys.owner, 'content-type': 'application/json' },
    body: JSON.stringify({ brand: BRAND, ...body }),
  }).then(async (res) => ({ status: res.status, body: await res.json() }));

/** A client account whose brand `host` is delegated to the agency (a billing change). */
async function delegateClient(app: AppContext, host: string) {
  const client = await createAccount(app, host, 'pro');
  await addBrand(app, { accountId: client, host, name: undefined, verified: true });
  await grantDelegation(app, {
    partnerId: cluster.world.accounts.agency,
    clientId: client,
    host,
    actor: 'test',
  });
}

const jobs = (name?: string) =>
  cluster.query((db) => {
    let q = db.selectFrom('jobs').select(['id', 'name', 'status', 'attempts', 'payload']);
    if (name) q = q.where('name', '=', name);
    return q.execute();
  });

/** Waits until `cond` holds, checking every 100 ms. */
async function until(what: string, cond: () => Promise<boolean> | boolean, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
const settled = () =>
  until('every job to finish', async () =>
    (await jobs()).every((j) => j.status === 'done' || j.status === 'failed'),
  );

/** The proposals of a story, with their status. */
const proposalsOf = (eventUri: string) =>
  cluster.query((db) =>
    db
      .selectFrom('advisories as a')
      .innerJoin('stories as s', 's.id', 'a.story_id')
      .select('a.status')
      .where('s.event_uri', '=', eventUri)
      .where('a.kind', '=', 'proposal')
      .execute(),
  );

/**
 * When the feed is next polled (null: now). Whichever instance schedules polls moves this
 * only if it still reads what it read, so a poll is never scheduled past it.
 */
const setFeedDue = (at: string | null) =>
  cluster.query(async (db) => {
    await db.updateTable('brand_feeds').set({ next_poll_at: at }).execute();
  });

/** How many times the article at `url` was filed into a story (once is right). */
const filed = (url: string) =>
  cluster.query((db) =>
    db
      .selectFrom('articles')
      .select('id')
      .where('url', '=', url)
      .execute()
      .then((rows) => rows.length),
  );

describe('jobs in a cluster', () => {
  it('runs each job of every kind once, whichever instance claims it', {
    timeout: 90_000,
  }, async () => {
    // Stories from URLs, each with its webhook deliveries.
    const urls = Array.from({ length: 9 }, (_, i) => `${base}/news/burst-${i}`);
    for (const url of urls) expect((await post('/v1/stories/from-url', { url })).status).toBe(202);
    // A feed with three items, polled every second by whichever instance schedules it.
    feedItems = ['/feed/one', '/feed/two', '/feed/three'];
    await cluster.query(async (_db, app) =>
      addFeed(app, await requireBrandByHost(app, BRAND), `${base}/feed.xml`, 'test'),
    );
    // Client brands delegated to the agency: each change recalculates its billing.
    await cluster.query(async (_db, app) => {
      await delegateClient(app, 'client-a.example');
      await delegateClient(app, 'client-b.example');
    });
    await settled();
    await until('the feed items to be in', async () => (await filed(`${base}/feed/three`)) > 0);
    // Proposals: context on a story whose advisory is unlocked.
    const event_uri = cluster.world.stories.northwind;
    expect((await post('/v1/advisory', { event_uri })).status).toBe(200);
    const context = await post('/v1/story/context', {
      event_uri,
      context: 'The courts dismissed the claim this morning.',
    });
    expect(context.status).toBe(202);
    await sleep(2500); // a few more feed polls
    // Then no more until a test below: the polls counted are all that read the feed.
    await setFeedDue('9999-12-31T00:00:00.000Z');
    await settled();

    const all = await jobs();
    const byName = new Map<string, typeof all>();
    for (const j of all) byName.set(j.name, [...(byName.get(j.name) ?? []), j]);
    for (const name of [
      'story.from_url',
      'feed.poll',
      'webhook.deliver',
      'billing.client_brands',
      'advisory.propose',
    ]) {
      expect(byName.get(name)?.length, name).toBeGreaterThan(0);
    }
    // No job ran twice: every one is done at its first attempt.
    expect(all.filter((j) => j.status !== 'done' || j.attempts !== 1)).toEqual([]);
    // Each page was read once and is one story; each feed poll read the feed once.
    for (const url of urls) {
      expect(requests.get(new URL(url).pathname), url).toBe(1);
      expect(await filed(url), url).toBe(1);
    }
    for (const item of feedItems) expect(requests.get(item), item).toBe(1);
    expect(requests.get('/feed.xml')).toBe(byName.get('feed.poll')!.length);
    // Each webhook event reached the receiver once.
    expect([...requests.entries()].filter(([k, n]) => k.startsWith('msg_') && n !== 1)).toEqual([]);
    expect(delivered.size).toBe(byName.get('webhook.deliver')!.length);
    // Each recalculation reported to Stripe at most once (only a changed count is sent).
    const identifiers = stripe.meterRequests.map((r) => r.idempotency_key);
    expect(new Set(identifiers).size).toBe(identifiers.length);
    // One proposal for the context.
    const proposals = await proposalsOf(event_uri);
    expect(proposals).toHaveLength(1);
  });

  /**
   * Holds the next request of `stage`, runs `trigger`, and kills (SIGKILL) the instance
   * whose job of `name` is waiting for it; then waits for a survivor to take the job over
   * once its lease lapsed. Answers the job; the killed instance is started again.
   */
  async function killMidJob(stage: Stage | 'stripe', name: string, trigger: () => Promise<void>) {
    const before = new Set((await jobs(name)).map((j) => j.id));
    const heldBefore = stage === 'stripe' ? stripe.meterRequests.length : held.length;
    if (stage === 'stripe') stripe.holdMeter = true;
    else holdNext.add(stage);
    await trigger();
    await until(`a ${name} job to wait on ${stage}`, () =>
      stage === 'stripe' ? stripe.meterRequests.length > heldBefore : held.length > heldBefore,
    );
    const job = (await jobs(name)).find((j) => !before.has(j.id) && j.status === 'running');
    expect(job, `the running ${name} job`).toBeDefined();
    const victim = await cluster.holderOf(job!.id);
    expect(victim, `the instance running ${name}`).toBeDefined();
    const killed = once(victim!.child, 'exit');
    victim!.child.kill('SIGKILL');
    await killed;
    if (stage === 'stripe') stripe.holdMeter = false;
    await until(`${name} to be taken over`, async () => {
      const now = (await jobs(name)).find((j) => j.id === job!.id);
      return now?.status === 'done';
    });
    await victim!.restart();
    const after = (await jobs(name)).find((j) => j.id === job!.id)!;
    // Claimed twice (the dead instance's attempt and the survivor's), done once.
    expect(after).toMatchObject({ status: 'done', attempts: 2 });
    return after;
  }

  it('finishes a story from a URL once when the instance reading the page is killed', {
    timeout: 60_000,
  }, async () => {
    const url = `${base}/news/killed-reader`;
    await killMidJob('page', 'story.from_url', async () => {
      expect((await post('/v1/stories/from-url', { url })).status).toBe(202);
    });
    expect(requests.get('/news/killed-reader')).toBe(2);
    expect(await filed(url)).toBe(1);
  });

  it('delivers a webhook once more, under the same id, when the instance sending it is killed', {
    timeout: 60_000,
  }, async () => {
    const job = await killMidJob('hook', 'webhook.deliver', async () => {
      const note = await post('/v1/brand-note', {
        event_uri: cluster.world.stories.northwind,
        text: 'Our statement.',
      });
      expect(note.status).toBe(200);
    });
    const delivery = await cluster.deliveryOf(job);
    // The cut-off request was never answered, so it is sent again with its webhook-id
    // (receivers deduplicate by it); the delivery records one attempt, delivered.
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(requests.get(delivery.event_id)).toBe(2);
    expect(delivered.get(delivery.event_id)).toBe(1);
  });

  it('polls a feed once when the instance reading it is killed: its items are in once', {
    timeout: 60_000,
  }, async () => {
    feedItems = ['/feed/four'];
    // The feed of the first test, held back once its polls were counted, is due again.
    await killMidJob('feed', 'feed.poll', () => setFeedDue(null));
    await until('the item to be in', async () => (await filed(`${base}/feed/four`)) > 0);
    expect(await filed(`${base}/feed/four`)).toBe(1);
    expect(requests.get('/feed/four')).toBe(1);
  });

  it('reports client brands to Stripe once when the instance reporting is killed', {
    timeout: 60_000,
  }, async () => {
    const job = await killMidJob('stripe', 'billing.client_brands', async () => {
      await cluster.query((_db, app) => delegateClient(app, 'client-c.example'));
    });
    const sent = stripe.meterRequests.filter((r) =>
      r.identifier?.startsWith(`client-brands-${job.id}-`),
    );
    // Sent twice under one idempotency key: Stripe counts it once.
    expect(sent).toHaveLength(2);
    expect(new Set(sent.map((r) => r.idempotency_key)).size).toBe(1);
    expect(stripe.meterEvents.filter((e) => e.identifier === sent[0]!.identifier)).toHaveLength(1);
  });

  it('makes one proposal when the instance asking the model is killed', {
    timeout: 60_000,
  }, async () => {
    const event_uri = cluster.world.stories.acme;
    expect((await post('/v1/advisory', { brand: 'acme.com', event_uri })).status).toBe(200);
    await killMidJob('llm', 'advisory.propose', async () => {
      const context = await post('/v1/story/context', {
        brand: 'acme.com',
        event_uri,
        context: 'The plant reopened on Monday.',
      });
      expect(context.status).toBe(202);
    });
    const proposals = await proposalsOf(event_uri);
    expect(proposals).toHaveLength(1);
    expect(proposals[0]!.status).not.toBe('generating');
  });

  it('stops a partner’s deliveries for a brand once the delegation is dropped, on every instance', {
    timeout: 60_000,
  }, async () => {
    const storyOn = (n: number) =>
      cluster.query(async (_db, app) => {
        const brand = await requireBrandByHost(app, FAILING_BRAND);
        await importStory(app, { brand, article: article(brand.name, n), actor: 'test' });
      });
    const deliveriesOf = () =>
      cluster.query((db) =>
        db
          .selectFrom('webhook_deliveries as d')
          .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
          .select(['d.event_id', 'd.event_type', 'd.status', 'd.attempts', 'd.last_error'])
          .where('e.account_id', '=', cluster.world.accounts.agency)
          .where('d.payload', 'like', `%${FAILING_BRAND}%`)
          .execute(),
      );
    await cluster.query((_db, app) => delegateClient(app, FAILING_BRAND));
    await storyOn(1);
    // Its first attempt failed; the next is seconds away.
    await until('the first attempt', async () =>
      (await deliveriesOf()).some((d) => d.event_type === 'story.created' && d.attempts === 1),
    );
    const drop = await fetch(`${cluster.url}/v1/delegations?brand=${FAILING_BRAND}`, {
      method: 'DELETE',
      headers: { 'x-api-key': cluster.world.keys.owner },
    });
    expect(drop.status).toBe(200);
    await storyOn(2);
    await until('the waiting delivery to be cancelled', async () =>
      (await deliveriesOf()).some((d) => d.status === 'cancelled'),
    );
    const deliveries = await deliveriesOf();
    // The waiting one is cancelled at its next attempt, whichever instance runs it; the
    // story after the drop makes none.
    const created = deliveries.filter((d) => d.event_type === 'story.created');
    expect(created).toEqual([
      expect.objectContaining({
        status: 'cancelled',
        attempts: 1,
        last_error: 'no longer routed: the delegation ended',
      }),
    ]);
    expect(requests.get(created[0]!.event_id)).toBe(1);
    // The delegation's own events still go to the partner (retried here: the receiver
    // fails them).
    const own = deliveries.filter((d) => d.event_type.startsWith('delegation.'));
    expect(own.map((d) => d.event_type).sort()).toEqual([
      'delegation.activated',
      'delegation.dropped',
    ]);
    expect(own.map((d) => d.status)).not.toContain('cancelled');
  });
});
