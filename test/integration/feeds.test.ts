import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/domain/accounts.js';
import { createKey } from '../../src/domain/api-key-admin.js';
import { addBrand, requireBrandByHost } from '../../src/domain/brands.js';
import { addFeed, listFeeds, removeFeed, scheduleDueFeeds } from '../../src/domain/feeds.js';
import { addEndpoint } from '../../src/webhooks/endpoints.js';
import { startService, type TestService } from '../support/harness.js';

/** Feed monitoring end to end: a local news site with an RSS feed, polled by the job. */
let svc: TestService;
let base: string;
let site: http.Server;
let key: string;
let account: string;
const requests: { url: string; ifNoneMatch?: string; ifModifiedSince?: string }[] = [];

const page = (title: string, publisher: string, date: string, paragraphs: string[]) =>
  `<!doctype html><html lang="en"><head><title>${title}</title>
<meta property="og:site_name" content="${publisher}">
<meta property="article:published_time" content="${date}T08:00:00Z"></head>
<body><nav>Home · World · Business</nav><article><h1>${title}</h1>
${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}</article><footer>© ${publisher}</footer></body></html>`;

const recallFacts = [
  'Acme is recalling 40,000 PowerCell 9 battery packs sold across Europe after reports that the packs overheat while charging and pose a fire risk.',
  'The PowerCell 9 recall covers every pack made between March and September, the company said, and owners should stop charging the battery packs at once.',
  'Acme said it would refund owners in full and has set up a hotline; the product-safety regulator is reviewing the overheating reports.',
];
const PAGES: Record<string, string> = {
  '/news/acme-recall': page(
    'Acme recalls 40,000 PowerCell 9 battery packs',
    'Daily Ledger',
    '2026-11-18',
    recallFacts,
  ),
  '/news/weather': page('Storms expected this weekend', 'Daily Ledger', '2026-11-18', [
    'Forecasters expect heavy rain and strong winds across the north on Saturday, with the worst of the weather arriving in the afternoon.',
    'Residents are advised to secure garden furniture and to take an umbrella if they must travel; trains may run late.',
    'Temperatures will recover early next week as a ridge of high pressure builds from the south-west.',
  ]),
  '/tech/powercell-pulled': page(
    'PowerCell 9 packs pulled after overheating reports',
    'Gadget Weekly',
    '2026-11-19',
    [
      'Owners of the PowerCell 9 should stop charging their battery packs now: Acme announced a recall of 40,000 units because of a fire risk from overheating.',
      'The recall covers packs made between March and September and sold across Europe, according to the notice.',
      'Acme promised a full refund and a hotline for owners while the product-safety regulator looks at the reports.',
    ],
  ),
};

/** A feed of the site: its items (oldest first) and its current ETag. */
interface Feed {
  items: { path: string; guid: string; date: string }[];
  etag: string;
}
/** Each test's feeds, by path: a test edits only its own. */
const feeds = new Map<string, Feed>();
let flaky = false;
const feedXml = (feed: Feed) => `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Daily Ledger</title><link>${base}/</link>
${[...feed.items]
  .reverse()
  .map(
    (i) =>
      `<item><title>${i.path}</title><link>${base}${i.path}</link><guid isPermaLink="false">${i.guid}</guid><pubDate>${new Date(i.date).toUTCString()}</pubDate></item>`,
  )
  .join('\n')}
</channel></rss>`;

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const url = req.url ?? '';
    requests.push({
      url,
      ifNoneMatch: req.headers['if-none-match'],
      ifModifiedSince: req.headers['if-modified-since'],
    });
    const feed = feeds.get(url);
    if (feed) {
      if (req.headers['if-none-match'] === feed.etag) {
        res.writeHead(304, { etag: feed.etag }).end();
        return;
      }
      res
        .writeHead(200, {
          'content-type': 'application/rss+xml',
          etag: feed.etag,
          'last-modified': 'Wed, 18 Nov 2026 10:00:00 GMT',
        })
        .end(feedXml(feed));
      return;
    }
    if (url === '/big.xml') {
      // Fifteen items, newest first, as feeds list them.
      const entries = Array.from({ length: 15 }, (_, i) => 15 - i).map(
        (n) =>
          `<item><title>Old ${n}</title><link>${base}/old/${n}</link><guid>old-${n}</guid></item>`,
      );
      res
        .writeHead(200, { 'content-type': 'application/rss+xml' })
        .end(`<rss version="2.0"><channel><title>Big</title>${entries.join('')}</channel></rss>`);
      return;
    }
    if (url === '/latin1.xml') {
      // ISO-8859-1 bytes, declared only in the XML declaration; the link has an accent.
      const xml = `<?xml version="1.0" encoding="ISO-8859-1"?><rss version="2.0"><channel><title>Le Journal</title><item><title>Nestlé et Acme</title><link>${base}/news/nestlé-acme</link><guid>café-1</guid></item></channel></rss>`;
      res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(Buffer.from(xml, 'latin1'));
      return;
    }
    if (url === '/news/nestl%C3%A9-acme') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGES['/news/acme-recall']);
      return;
    }
    if (url === '/news/flaky') {
      if (flaky) res.writeHead(503).end();
      else res.writeHead(200, { 'content-type': 'text/html' }).end(PAGES['/news/weather']);
      return;
    }
    const html = PAGES[url];
    if (html) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    else res.writeHead(404).end();
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  const port = (site.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  svc = await startService(
    { FETCH_ALLOW_HOSTS: `127.0.0.1:${port}`, FEED_POLL_MS: '60000' },
    { runJobs: false },
  );
  account = await createAccount(svc.app, 'Acme', 'partner');
  key = (await createKey(svc.app, { accountId: account, role: 'owner', scope: null, actor: 't' }))
    .key;
  await addEndpoint(svc.app, {
    accountId: account,
    url: `${base}/hook`,
    events: ['story.updated'],
    actor: 'test',
  });
});
afterAll(async () => {
  site.close();
  await svc.close();
});

let brands = 0;
/**
 * A brand named Acme of the test's own (its stories, its feeds), and a feed of the site
 * at a path of its own: each test polls only what it made.
 */
async function acme() {
  const n = ++brands;
  const host = `acme-${n}.example`;
  await addBrand(svc.app, { accountId: account, host, name: 'Acme', verified: true });
  const brand = await requireBrandByHost(svc.app, host);
  const stories = async () =>
    (await svc.request('GET', '/v1/stories', { key, query: { brand: host } })).body.stories;
  return { host, brand, stories };
}

async function siteFeed(brand: { id: string; account_id: string }) {
  const path = `/feeds/${brands}-${feeds.size}.xml`;
  const feed: Feed = { items: [], etag: '"v1"' };
  feeds.set(path, feed);
  const { id } = await addFeed(svc.app, brand, `${base}${path}`, 'operator');
  return { id, path, feed };
}

/** Polls one feed now, as its job would. */
async function pollOnly(feed: string) {
  await svc.app.db
    .updateTable('brand_feeds')
    .set({ next_poll_at: '2099-01-01T00:00:00.000Z' })
    .execute();
  await svc.app.db
    .updateTable('brand_feeds')
    .set({ next_poll_at: '2000-01-01T00:00:00.000Z' })
    .where('id', '=', feed)
    .execute();
  expect(await scheduleDueFeeds(svc.app)).toBe(1);
  await svc.app.jobs.drain();
}

/** Polls one feed as two schedulers (two processes) due at the same instant would. */
async function poll(feed: string): Promise<void> {
  const due = () =>
    svc.app.db
      .updateTable('brand_feeds')
      .set({ next_poll_at: '2000-01-01T00:00:00.000Z' })
      .where('id', '=', feed)
      .execute();
  await svc.app.db
    .updateTable('brand_feeds')
    .set({ next_poll_at: '2099-01-01T00:00:00.000Z' })
    .execute();
  await due();
  // Two schedulers at the same instant: one poll is enqueued.
  const claimed = await Promise.all([scheduleDueFeeds(svc.app), scheduleDueFeeds(svc.app)]);
  expect(claimed.sort()).toEqual([0, 1]);
  // Due again before its poll ran: no second poll of the same feed.
  await due();
  expect(await scheduleDueFeeds(svc.app)).toBe(0);
  await svc.app.jobs.drain();
}

const outcomesOf = async (feed: string) =>
  Object.fromEntries(
    (
      await svc.app.db
        .selectFrom('feed_items')
        .select(['item_key', 'outcome'])
        .where('feed_id', '=', feed)
        .execute()
    ).map((r) => [r.item_key, r.outcome]),
  );

describe('feed monitoring', () => {
  it('refuses a feed URL that is not http(s) or not public', async () => {
    const { brand } = await acme();
    await expect(addFeed(svc.app, brand, 'ftp://example.org/feed', 't')).rejects.toThrow(/url:/);
    await expect(addFeed(svc.app, brand, 'http://10.0.0.1/feed', 't')).rejects.toThrow(/url:/);
  });

  it('reads new items: one that mentions the brand becomes a story, the other is skipped', async () => {
    const { brand, stories } = await acme();
    const { id, path, feed } = await siteFeed(brand);
    await expect(addFeed(svc.app, brand, `${base}${path}`, 'operator')).rejects.toThrow(
      /already monitored/,
    );
    feed.items = [
      { path: '/news/acme-recall', guid: 'ledger-1', date: '2026-11-18T08:00:00Z' },
      { path: '/news/weather', guid: 'ledger-2', date: '2026-11-18T09:00:00Z' },
    ];
    await poll(id);
    const list = await stories();
    expect(list).toHaveLength(1);
    expect(list[0].title).toBe('Acme recalls 40,000 PowerCell 9 battery packs');
    expect(await outcomesOf(id)).toEqual({
      'ledger-1': 'created',
      'ledger-2': 'skipped: brand not mentioned',
    });
    const [listed] = await listFeeds(svc.app, brand.id);
    expect(listed).toMatchObject({ last_status: '200: 2 new items', last_error: null });
  });

  it('an unchanged feed answers 304 to the conditional request and nothing is created', async () => {
    const { brand, stories } = await acme();
    const { id, path, feed } = await siteFeed(brand);
    feed.items = [{ path: '/news/acme-recall', guid: 'ledger-1', date: '2026-11-18T08:00:00Z' }];
    await poll(id);
    const before = requests.length;
    await poll(id);
    const asked = requests.slice(before);
    expect(asked).toEqual([
      { url: path, ifNoneMatch: '"v1"', ifModifiedSince: 'Wed, 18 Nov 2026 10:00:00 GMT' },
    ]);
    expect(await stories()).toHaveLength(1);
    expect((await listFeeds(svc.app, brand.id))[0]!.last_status).toBe('304 not modified');
  });

  it('an item covering the same event joins the story: spread, severity and story.updated', async () => {
    const { brand, stories } = await acme();
    const { id, path, feed } = await siteFeed(brand);
    feed.items = [{ path: '/news/acme-recall', guid: 'ledger-1', date: '2026-11-18T08:00:00Z' }];
    await poll(id);
    const [story] = await stories();
    // The advisory is locked, so the scores are read where they are kept.
    const scores = () =>
      svc.app.db
        .selectFrom('stories as s')
        .innerJoin('advisories as a', (j) =>
          j.onRef('a.story_id', '=', 's.id').on('a.kind', '=', 'live'),
        )
        .select([
          's.id',
          's.severity',
          's.spread',
          's.topics',
          'a.spread as advisory_spread',
          'a.summary_basis',
        ])
        .where('s.event_uri', '=', story.event_uri)
        .executeTakeFirstOrThrow();
    expect(await scores()).toMatchObject({ spread: 'contained', advisory_spread: 'contained' });

    feed.items.push({ path: '/tech/powercell-pulled', guid: 'gw-1', date: '2026-11-19T07:00:00Z' });
    feed.etag = '"v2"';
    const fetched = requests.length;
    await poll(id);
    // Only the new item's page is read; items seen before are not fetched again.
    const asked = requests.slice(fetched).map((r) => r.url);
    expect(asked.filter((u) => u !== '/hook')).toEqual([path, '/tech/powercell-pulled']);

    const list = await stories();
    expect(list).toHaveLength(1);
    const joined = await scores();
    expect(joined).toMatchObject({
      // A recall Acme runs itself, nobody hurt, 40,000 packs: high, not a crisis.
      severity: 'high',
      spread: 'growing',
      advisory_spread: 'growing',
      summary_basis: JSON.stringify(['s1', 's2']),
    });
    const articles = await svc.app.db
      .selectFrom('articles')
      .select(['source_key', 'publisher'])
      .where('story_id', '=', joined.id)
      .orderBy('source_key')
      .execute();
    expect(articles).toEqual([
      { source_key: 's1', publisher: 'Daily Ledger' },
      { source_key: 's2', publisher: 'Gadget Weekly' },
    ]);
    const audit = await svc.app.db
      .selectFrom('audit_log')
      .select(['action', 'actor'])
      .where('action', '=', 'story.article_added')
      .where('story_id', '=', joined.id)
      .execute();
    expect(audit).toEqual([{ action: 'story.article_added', actor: 'monitor' }]);
    const deliveries = (
      await svc.app.db.selectFrom('webhook_deliveries').select(['event_type', 'payload']).execute()
    ).filter((d) => d.payload.includes(story.event_uri));
    expect(deliveries.map((d) => d.event_type)).toEqual(['story.updated']);
    expect(asked).toContain('/hook');
    expect(JSON.parse(deliveries[0]!.payload)).toMatchObject({ type: 'story.updated' });
    const feedItem = await svc.app.db
      .selectFrom('feed_items')
      .select(['outcome', 'event_uri'])
      .where('feed_id', '=', id)
      .where('item_key', '=', 'gw-1')
      .executeTakeFirstOrThrow();
    expect(feedItem).toEqual({ outcome: 'joined', event_uri: story.event_uri });
  });

  it('a page that is down is read again at the next poll; one that is gone is not', async () => {
    const { brand } = await acme();
    const { id, feed } = await siteFeed(brand);
    feed.items = [
      { path: '/news/flaky', guid: 'flaky-1', date: '2026-11-19T09:00:00Z' },
      { path: '/news/missing', guid: 'missing-1', date: '2026-11-19T09:30:00Z' },
    ];
    flaky = true;
    try {
      await poll(id);
    } finally {
      flaky = false;
    }
    expect((await outcomesOf(id))['flaky-1']).toBeUndefined();
    expect((await outcomesOf(id))['missing-1']).toBe('skipped: the page answered HTTP 404');
    expect((await listFeeds(svc.app, brand.id))[0]!.last_status).toBe(
      '200: 2 new items, 1 to retry',
    );
    // The validators were not kept: the next poll reads the feed again, not a 304.
    await poll(id);
    expect((await outcomesOf(id))['flaky-1']).toBe('skipped: brand not mentioned');
  });

  it('at its first poll a feed’s history is remembered unread: only its 10 newest items are read', async () => {
    const { brand } = await acme();
    const big = await addFeed(svc.app, brand, `${base}/big.xml`, 'operator');
    const before = requests.length;
    await svc.app.jobs.drain();
    await pollOnly(big.id);
    const read = requests.slice(before).filter((r) => r.url.startsWith('/old/'));
    expect(read.map((r) => r.url)).toEqual(Array.from({ length: 10 }, (_, i) => `/old/${i + 6}`));
    const history = await svc.app.db
      .selectFrom('feed_items')
      .select('item_key')
      .where('feed_id', '=', big.id)
      .where('outcome', '=', 'skipped: before monitoring began')
      .execute();
    expect(history.map((h) => h.item_key).sort()).toEqual([
      'old-1',
      'old-2',
      'old-3',
      'old-4',
      'old-5',
    ]);
  });

  it('a feed in a legacy charset is read in it: its accented link and guid survive', async () => {
    const { brand } = await acme();
    const feed = await addFeed(svc.app, brand, `${base}/latin1.xml`, 'operator');
    await svc.app.jobs.drain();
    await pollOnly(feed.id);
    const items = await svc.app.db
      .selectFrom('feed_items')
      .select(['item_key', 'url', 'outcome'])
      .where('feed_id', '=', feed.id)
      .execute();
    expect(items).toEqual([
      {
        item_key: 'café-1',
        url: `${base}/news/nestl%C3%A9-acme`,
        outcome: expect.stringMatching(/^(created|joined|exists)$/),
      },
    ]);
  });

  it('a removed feed is no longer polled', async () => {
    const { brand } = await acme();
    const { id } = await siteFeed(brand);
    await svc.app.db
      .updateTable('brand_feeds')
      .set({ next_poll_at: '2099-01-01T00:00:00.000Z' })
      .execute();
    await svc.app.db
      .updateTable('brand_feeds')
      .set({ next_poll_at: '2000-01-01T00:00:00.000Z' })
      .where('id', '=', id)
      .execute();
    await removeFeed(svc.app, brand, id, 'operator');
    expect(await listFeeds(svc.app, brand.id)).toEqual([]);
    expect(await scheduleDueFeeds(svc.app)).toBe(0);
  });
});
