import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { requireBrandByHost } from '../../src/domain/brands.js';
import { scheduleDueConnectors } from '../../src/domain/connector-schedule.js';
import { type ConnectorStatus, listConnectors } from '../../src/domain/connector-settings.js';
import { pruneFound } from '../../src/domain/retention.js';
import { brs } from '../support/cli.js';
import { makeConnectorsDue, pollConnectors } from '../support/connectors.js';
import { startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';

/**
 * Issue 43: the connectors that read what the team names for a brand (its App Store apps,
 * the YouTube channels that cover it, its Trustpilot page) and the keyed ones (X, YouTube's
 * Data API, Trustpilot), against one local server answering in each service's documented
 * shape (samples written here); and Mastodon read on two instances.
 */
let svc: TestService;
let base: string;
let env: Record<string, string>;
let account: string;
let site: http.Server;
/** Each request as the services saw it: path, the key headers, the instance. */
const asked: { path: string; auth?: string; apikey?: string; goog?: string; host?: string }[] = [];
const UNIT = '5f0e1d2c3b4a596877665544';
const CHANNEL = 'UCabcdefghijklmnopqrstuv';

const json = (body: unknown) => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
const label = (v: string) => ({ label: v });
const review = (id: string, rating: string, votes: string, title: string, text: string) => ({
  author: { name: label('owner'), uri: label('https://itunes.apple.com/us/reviews/id1') },
  updated: label('2026-11-28T03:14:00-07:00'),
  'im:rating': label(rating),
  'im:version': label('4.2'),
  id: label(id),
  title: label(title),
  content: { label: text, attributes: { type: 'text' } },
  'im:voteSum': label(votes),
  'im:voteCount': label(votes),
});

/** Owners of one app saying one thing, each in their own words: one says it twice. */
const PAIRING = [
  [
    'ann',
    'The app loses the pairing with my bike every morning since the update, so the lock will not open.',
  ],
  [
    'bo',
    'Since the update the app keeps losing the pairing with the bike and the lock stays shut.',
  ],
  ['cy', 'Lock will not open: the app lost the pairing with my bike again after the update.'],
  [
    'dee',
    'After the update the app drops the pairing with the bike each morning; the lock will not open.',
  ],
  [
    'dee',
    'Still losing the pairing with my bike since the update, the lock will not open again today.',
  ],
  [
    'eli',
    'The update broke the pairing: every morning the app loses my bike and the lock will not open.',
  ],
];
let pairingSaid = 5;
let closedInstance = false;

function answerFor(url: URL, req: http.IncomingMessage) {
  const p = url.pathname;
  if (p === '/us/rss/customerreviews/page=1/id=2222222222/sortby=mostrecent/json') {
    return json({
      feed: {
        entry: PAIRING.slice(0, pairingSaid).map(([author, text], i) => ({
          ...review(`2200000000${i}`, '1', '0', 'Lock will not open', text!),
          author: { name: label(author!), uri: label('https://itunes.apple.com/us/reviews/id2') },
        })),
      },
    });
  }
  if (p === '/us/rss/customerreviews/page=1/id=1234567890/sortby=mostrecent/json') {
    return json({
      feed: {
        entry: [
          review(
            '11000000001',
            '1',
            '14',
            'Forgets my bike',
            'Since the update the app loses the pairing every morning and the lock will not open.',
          ),
          review('11000000002', '5', '0', 'Great', 'Works well.'),
          // Two months old, however many votes: not news.
          {
            ...review('11000000009', '1', '90', 'Broken', 'The Zentrix app crashed on launch.'),
            updated: label('2026-09-20T10:00:00-07:00'),
          },
        ],
        title: label('iTunes Store: Customer Reviews'),
      },
    });
  }
  if (p === '/feeds/videos.xml' && url.searchParams.get('channel_id') === CHANNEL) {
    return {
      status: 200,
      headers: { 'content-type': 'application/atom+xml' },
      body: `<?xml version="1.0" encoding="UTF-8"?><feed xmlns:yt="http://www.youtube.com/xml/schemas/2015" xmlns:media="http://search.yahoo.com/mrss/" xmlns="http://www.w3.org/2005/Atom"><title>Bike Bench</title><author><name>Bike Bench</name></author>
<entry><id>yt:video:vid00000001</id><yt:videoId>vid00000001</yt:videoId><title>Zentrix e-bike after 1,000 km: the battery lost a third</title><link rel="alternate" href="https://www.youtube.com/watch?v=vid00000001"/><author><name>Bike Bench</name></author><published>2026-11-28T16:00:00+00:00</published>
<media:group><media:description>We rode the Zentrix commuter for a month and the battery lost a third of its range.</media:description><media:community><media:starRating count="900" average="5.00" min="1" max="5"/><media:statistics views="48000"/></media:community></media:group></entry></feed>`,
    };
  }
  if (p === '/2/tweets/search/recent') {
    if (req.headers.authorization !== 'Bearer x-token') {
      return json({
        title: 'Unauthorized',
        type: 'about:blank',
        status: 401,
        detail: 'Unauthorized',
      });
    }
    return json({
      data: [
        {
          id: '1862000000000000003',
          text: 'Zentrix has stopped answering warranty claims, five weeks and counting.',
          author_id: '42',
          created_at: '2026-11-28T09:00:00.000Z',
          public_metrics: { retweet_count: 30, reply_count: 12, like_count: 90, quote_count: 4 },
        },
      ],
      includes: {
        users: [{ id: '42', username: 'rider', public_metrics: { followers_count: 300 } }],
      },
      meta: { newest_id: '1862000000000000003', result_count: 1 },
    });
  }
  if (p === '/youtube/v3/search') {
    return json({ kind: 'youtube#searchListResponse', items: [] });
  }
  if (p === `/v1/business-units/${UNIT}/reviews`) {
    if (req.headers.apikey !== 'tp-key') {
      return { ...json({ message: 'Unauthorized' }), status: 401 };
    }
    return json({
      reviews: [
        {
          id: '6743a1b2c3d4e5f6a7b8c9d0',
          stars: 1,
          title: 'Refund never came',
          text: 'Returned a battery in October and I am still waiting for the refund.',
          createdAt: '2026-11-27T20:00:00Z',
          numberOfLikes: 11,
          consumer: { displayName: 'R. Patel' },
        },
      ],
    });
  }
  if (p === '/api/v1/timelines/tag/zentrix') {
    // An instance that closes its public timelines to anonymous readers.
    if (closedInstance && req.headers.host?.startsWith('localhost')) {
      return { ...json({ error: 'This method requires an authenticated user' }), status: 401 };
    }
    return json([]);
  }
  return { status: 404, headers: {}, body: '' };
}

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    asked.push({
      path: `${url.pathname}${url.search}`,
      auth: req.headers.authorization,
      apikey: req.headers.apikey as string | undefined,
      goog: req.headers['x-goog-api-key'] as string | undefined,
      host: req.headers.host,
    });
    const a = answerFor(url, req);
    res.writeHead(a.status, a.headers ?? {}).end(a.body);
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  const port = (site.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  const config = {
    FETCH_ALLOW_HOSTS: `127.0.0.1:${port},localhost:${port}`,
    CONNECTORS: 'app-store,youtube,x,youtube-search,trustpilot,mastodon',
    APP_STORE_URL: base,
    YOUTUBE_URL: base,
    X_API_URL: base,
    YOUTUBE_API_URL: base,
    TRUSTPILOT_API_URL: base,
    // Two instances: the same server under two names.
    MASTODON_URL: `${base},http://localhost:${port}`,
    X_BEARER_TOKEN: 'x-token',
    YOUTUBE_API_KEY: 'yt-key',
    TRUSTPILOT_API_KEY: 'tp-key',
  };
  svc = await startService(config, { runJobs: false });
  const db = svc.app.config.database;
  env = { ...config, DATABASE_URL: db.dialect === 'postgres' ? db.url : db.file };
  account = await createAccount(svc.app, 'Zentrix', 'partner');
});
afterAll(async () => {
  site.close();
  await svc.close();
});

let brands = 0;
async function zentrix() {
  const host = `zentrix-keyed-${++brands}.example`;
  const added = await brs(
    env,
    'brand',
    'add',
    '--account',
    account,
    '--host',
    host,
    '--name',
    'Zentrix',
  );
  expect(added.code).toBe(0);
  return { host, brand: await requireBrandByHost(svc.app, host) };
}

describe('connectors that read named things, and keyed ones', () => {
  it('wait idle until the team names an app, a channel, a page; then read reviews and videos about the brand', async () => {
    const { host, brand } = await zentrix();
    const listed = await listConnectors(svc.app, brand.id);
    expect(listed.find((c) => c.connector === 'app-store')!.targets).toEqual({
      what: 'App Store app id',
      example: '284882215 or gb:284882215',
      set: [],
    });
    expect(listed.find((c) => c.connector === 'x')!.targets).toBeUndefined();
    // Named nothing yet: not claimed, not failing.
    await makeConnectorsDue(svc.app, [brand.id], ['app-store', 'youtube', 'trustpilot']);
    await svc.app.db.deleteFrom('connector_backoff').execute();
    expect(await scheduleDueConnectors(svc.app)).toBe(0);

    // Something that is not an app id is refused, in words, and nothing is kept.
    const wrong = await brs(
      env,
      'source',
      'targets',
      '--brand',
      host,
      '--connector',
      'app-store',
      '--set',
      'https://apps.apple.com/app/acme',
    );
    expect(wrong.code).not.toBe(0);
    expect(wrong.out).toEqual({
      error:
        'targets: "https://apps.apple.com/app/acme" is not an App Store app id (like 284882215 or gb:284882215)',
    });
    const notTargeted = await brs(
      env,
      'source',
      'targets',
      '--brand',
      host,
      '--connector',
      'x',
      '--set',
      '1',
    );
    expect(notTargeted.code).not.toBe(0);
    for (const [connector, ids] of [
      ['app-store', '1234567890'],
      ['youtube', CHANNEL],
      ['trustpilot', UNIT],
    ] as const) {
      const set = await brs(
        env,
        'source',
        'targets',
        '--brand',
        host,
        '--connector',
        connector,
        '--set',
        ids,
        '--json',
      );
      expect(set.code).toBe(0);
      expect((set.out as { connector: ConnectorStatus }).connector.targets!.set).toEqual([ids]);
    }
    // On the portal's Brands page an admin names them too, in a labelled field.
    await addUser(svc.app, {
      accountId: account,
      email: `admin-${host}@zentrix.example`,
      password: 'correct horse battery',
      role: 'admin',
    });
    const c = new PortalClient(svc.url);
    await c.signIn(`admin-${host}@zentrix.example`, 'correct horse battery');
    const page = await c.get('/app/brands');
    expect(page.html).toContain(
      `<label for="targets-${host}-youtube" class="small">YouTube channels: YouTube channel ids`,
    );
    const named = await c.post('/app/brands/connector-targets', {
      brand: host,
      connector: 'youtube',
      targets: `${CHANNEL}, ${CHANNEL}`,
    });
    expect(named.status).toBe(303);
    const wrongOnPage = await c.post('/app/brands/connector-targets', {
      brand: host,
      connector: 'youtube',
      targets: '@bikebench',
    });
    expect(wrongOnPage.status).toBe(400);
    expect(wrongOnPage.html).toContain('is not a YouTube channel id');
    const audited = await svc.app.db
      .selectFrom('audit_log')
      .select('action')
      .where('brand_id', '=', brand.id)
      .where('action', '=', 'connector.targets_set')
      .execute();
    expect(audited).toHaveLength(4);

    const start = asked.length;
    expect(await pollConnectors(svc.app, brand.id)).toBe(6);
    const articles = await svc.app.db
      .selectFrom('articles as a')
      .innerJoin('stories as s', 's.id', 'a.story_id')
      .select(['a.url', 'a.type', 'a.publisher', 'a.title'])
      .where('s.brand_id', '=', brand.id)
      .orderBy('a.url')
      .execute();
    expect(articles).toEqual([
      {
        url: 'https://apps.apple.com/us/app/id1234567890?see-all=reviews#review-11000000001',
        type: 'review',
        publisher: 'App Store (US)',
        // A review does not name the app's maker: its title says whose it is.
        title: 'Zentrix review: Forgets my bike',
      },
      {
        url: 'https://www.trustpilot.com/reviews/6743a1b2c3d4e5f6a7b8c9d0',
        type: 'review',
        publisher: 'Trustpilot',
        title: 'Zentrix review: Refund never came',
      },
      {
        url: 'https://www.youtube.com/watch?v=vid00000001',
        type: 'social',
        publisher: 'YouTube (Bike Bench)',
        title: 'Zentrix e-bike after 1,000 km: the battery lost a third',
      },
      {
        url: 'https://x.com/rider/status/1862000000000000003',
        type: 'social',
        publisher: 'X',
        title: 'Zentrix has stopped answering warranty claims, five weeks and counting.',
      },
    ]);
    // The five-star review nobody voted on is a review with little reach.
    const quiet = await svc.app.db
      .selectFrom('connector_items')
      .select('outcome')
      .where('item_key', '=', 'app-store:11000000002')
      .executeTakeFirstOrThrow();
    expect(quiet.outcome).toBe('held: little reach (0)');
    expect(
      await svc.app.db
        .selectFrom('connector_items')
        .select('id')
        .where('item_key', '=', 'app-store:11000000009')
        .execute(),
    ).toEqual([]);

    // The keys went in headers, never in an address; Mastodon was asked on both instances.
    const now = asked.slice(start);
    expect(now.find((a) => a.path.startsWith('/2/tweets'))!.auth).toBe('Bearer x-token');
    expect(now.find((a) => a.path.startsWith('/v1/business-units'))!.apikey).toBe('tp-key');
    expect(now.find((a) => a.path.startsWith('/youtube/v3'))!.goog).toBe('yt-key');
    for (const a of now) expect(a.path).not.toMatch(/x-token|tp-key|yt-key/);
    expect(
      now.filter((a) => a.path.startsWith('/api/v1/timelines')).map((a) => a.host?.split(':')[0]),
    ).toEqual(['127.0.0.1', 'localhost']);
    const authors = await svc.app.db
      .selectFrom('articles as a')
      .innerJoin('stories as s', 's.id', 'a.story_id')
      .select(['a.publisher', 'a.author'])
      .where('s.brand_id', '=', brand.id)
      .orderBy('a.publisher')
      .execute();
    expect(authors).toEqual([
      { publisher: 'App Store (US)', author: 'owner' },
      { publisher: 'Trustpilot', author: 'R. Patel' },
      { publisher: 'X', author: '@rider' },
      { publisher: 'YouTube (Bike Bench)', author: 'Bike Bench' },
    ]);
    const x = (await listConnectors(svc.app, brand.id)).find((c) => c.connector === 'x')!;
    expect(x.last_status).toBe('200: 1 new item');
  });

  it('make one story of several people saying one thing, each with too little reach alone', async () => {
    const { host, brand } = await zentrix();
    const set = await brs(
      env,
      'source',
      'targets',
      '--brand',
      host,
      '--connector',
      'app-store',
      '--set',
      '2222222222',
    );
    expect(set.code).toBe(0);
    const stories = () =>
      svc.app.db
        .selectFrom('articles as a')
        .innerJoin('stories as s', 's.id', 'a.story_id')
        .select(['s.event_uri', 'a.url'])
        .where('s.brand_id', '=', brand.id)
        .execute();
    // Five reviews, four people: each kept as a mention, no story.
    pairingSaid = 5;
    await pollConnectors(svc.app, brand.id, ['app-store']);
    expect(await stories()).toEqual([]);
    const quiet = await svc.app.db
      .selectFrom('quiet_mentions')
      .select(['author', 'type', 'title'])
      .where('brand_id', '=', brand.id)
      .execute();
    expect(quiet).toHaveLength(5);
    expect(quiet[0]).toMatchObject({ type: 'review', title: 'Zentrix review: Lock will not open' });
    // A fifth person says it: one story, all six its sources, none left waiting.
    pairingSaid = 6;
    await pollConnectors(svc.app, brand.id, ['app-store']);
    const told = await stories();
    expect(told).toHaveLength(6);
    expect(new Set(told.map((t) => t.event_uri)).size).toBe(1);
    expect(
      await svc.app.db
        .selectFrom('quiet_mentions')
        .select('id')
        .where('brand_id', '=', brand.id)
        .execute(),
    ).toEqual([]);
    const last = await svc.app.db
      .selectFrom('connector_items')
      .select('outcome')
      .where('item_key', '=', 'app-store:22000000005')
      .executeTakeFirstOrThrow();
    // The oldest post starts the story; the one that made five people joins it.
    expect(last.outcome).toBe('joined');

    // Sixty days on, what was found and the quiet posts go; a story's sources stay.
    const other = await zentrix();
    await brs(
      env,
      'source',
      'targets',
      '--brand',
      other.host,
      '--connector',
      'app-store',
      '--set',
      '2222222222',
    );
    pairingSaid = 2;
    await pollConnectors(svc.app, other.brand.id, ['app-store']);
    const old = new Date(svc.app.clock.now().getTime() - 61 * 86_400_000).toISOString();
    await svc.app.db
      .updateTable('quiet_mentions')
      .set({ created_at: old })
      .where('brand_id', '=', other.brand.id)
      .execute();
    await svc.app.db
      .updateTable('connector_items')
      .set({ created_at: old })
      .where('brand_connector_id', '=', `${other.brand.id}.app-store`)
      .execute();
    expect(await pruneFound(svc.app)).toBe(4);
    // A brand with posts kept as quiet mentions is deleted with them.
    const third = await zentrix();
    await brs(
      env,
      'source',
      'targets',
      '--brand',
      third.host,
      '--connector',
      'app-store',
      '--set',
      '2222222222',
    );
    await pollConnectors(svc.app, third.brand.id, ['app-store']);
    const held = await svc.app.db
      .selectFrom('quiet_mentions')
      .select('id')
      .where('brand_id', '=', third.brand.id)
      .execute();
    expect(held.length).toBeGreaterThan(0);
    expect((await brs(env, 'brand', 'delete', '--host', third.host)).code).toBe(0);
    expect(
      await svc.app.db
        .selectFrom('quiet_mentions')
        .select('id')
        .where('brand_id', '=', third.brand.id)
        .execute(),
    ).toEqual([]);
    expect(
      await svc.app.db
        .selectFrom('quiet_mentions')
        .select('id')
        .where('brand_id', '=', other.brand.id)
        .execute(),
    ).toEqual([]);
    expect(await stories()).toHaveLength(6);
  });

  it('record a service’s refusal as a failure, naming no key; YouTube’s daily quota paces its searches', async () => {
    const { brand } = await zentrix();
    await svc.app.db
      .updateTable('brand_connectors')
      .set({ targets: JSON.stringify(['000000000000000000000000']) })
      .where('id', '=', `${brand.id}.trustpilot`)
      .execute();
    await pollConnectors(svc.app, brand.id, ['trustpilot']);
    const tp = (await listConnectors(svc.app, brand.id)).find((c) => c.connector === 'trustpilot')!;
    expect(tp.last_status).toBe('HTTP 404');
    expect(tp.last_error).toBe('Trustpilot answered HTTP 404');
    expect(tp.failing_since).not.toBeNull();

    // One search claimed in its window (100 a day: one in 14.4 minutes), none in the next minute.
    const other = await zentrix();
    await makeConnectorsDue(svc.app, [brand.id, other.brand.id], ['youtube-search']);
    await svc.app.db.deleteFrom('connector_backoff').execute();
    expect(await scheduleDueConnectors(svc.app)).toBe(1);
    const held = await svc.app.db
      .selectFrom('connector_backoff')
      .select('until')
      .where('connector', '=', 'youtube-search')
      .executeTakeFirstOrThrow();
    expect(Date.parse(held.until) - svc.app.clock.now().getTime()).toBeGreaterThan(14 * 60_000);
    expect(await scheduleDueConnectors(svc.app)).toBe(0);
    await svc.app.jobs.drain();

    // One Mastodon instance refusing: recorded, and the other still read.
    closedInstance = true;
    try {
      await pollConnectors(svc.app, brand.id, ['mastodon']);
      const m = (await listConnectors(svc.app, brand.id)).find((c) => c.connector === 'mastodon')!;
      expect(m.last_status).toBe('200: 0 new items, 1 of 2 requests failed');
      expect(m.last_error).toMatch(/^Mastodon answered HTTP 401 for localhost:\d+$/);
      expect(m.failing_since).not.toBeNull();
    } finally {
      closedInstance = false;
    }

    // The rate counts requests: three brands reading ten apps each are thirty requests,
    // and the App Store's twenty a minute take two of them.
    const many = [await zentrix(), await zentrix(), await zentrix()];
    const apps = Array.from({ length: 10 }, (_, i) => String(3_000_000_000 + i));
    for (const b of many) {
      await svc.app.db
        .updateTable('brand_connectors')
        .set({ targets: JSON.stringify(apps) })
        .where('id', '=', `${b.brand.id}.app-store`)
        .execute();
    }
    await makeConnectorsDue(
      svc.app,
      many.map((b) => b.brand.id),
      ['app-store'],
    );
    await svc.app.db.deleteFrom('connector_backoff').execute();
    expect(await scheduleDueConnectors(svc.app)).toBe(2);
    await svc.app.db
      .deleteFrom('jobs')
      .where('name', '=', 'connector.poll')
      .where('status', '=', 'queued')
      .execute();
  });
});
