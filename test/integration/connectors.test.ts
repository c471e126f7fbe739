import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { createAlertRule } from '../../src/domain/alerts.js';
import { createKey } from '../../src/domain/api-key-admin.js';
import { requireBrandByHost } from '../../src/domain/brands.js';
import { scheduleDueConnectors, seedMissing } from '../../src/domain/connector-schedule.js';
import { listConnectors, setConnector } from '../../src/domain/connector-settings.js';
import { POST_REACH, pollConnectorJob } from '../../src/domain/connectors.js';
import { announceSpikes, SPIKE_MIN } from '../../src/domain/mention-spikes.js';
import { followNewsroom } from '../../src/domain/newsroom.js';
import { addEndpoint } from '../../src/webhooks/endpoints.js';
import { brs } from '../support/cli.js';
import { makeConnectorsDue, pollConnectors } from '../support/connectors.js';
import { startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';

/**
 * Issue 43: coverage found with no feed URL given. One local server answers as Google
 * News, Bing News, GDELT, Hacker News search and a Mastodon instance do (their documented
 * formats, in samples written here) and serves the publishers' pages; a brand added with
 * `brs brand add` gets every connector on, and stories arrive from three kinds of source:
 * news, a forum thread and a social post.
 */
let svc: TestService;
let base: string;
let site: http.Server;
let key: string;
let account: string;
let env: Record<string, string>;
const asked: string[] = [];
/** What the Slack receiver here was sent. */
const slackPosts: { path: string; body: { text: string; blocks: unknown[] } }[] = [];
let robots: string | null = null;

const page = (title: string, publisher: string, paragraphs: string[]) =>
  `<!doctype html><html lang="en"><head><title>${title}</title>
<meta property="og:site_name" content="${publisher}">
<meta property="article:published_time" content="2026-11-28T08:00:00Z"></head>
<body><article><h1>${title}</h1>
${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}</article></body></html>`;

const recall = [
  'Zentrix is recalling 40,000 PowerCell 9 battery packs sold across Europe after reports that the packs overheat while charging and pose a fire risk.',
  'The recall covers every pack made between March and September, the company said, and owners should stop charging the battery packs at once.',
  'Zentrix said customers can return the packs to any store for a full refund, and that it had informed the product-safety regulator.',
];
const PAGES: Record<string, string> = {
  '/news/zentrix-recall': page(
    'Zentrix recalls 40,000 PowerCell 9 battery packs',
    'Daily Ledger',
    recall,
  ),
  '/tech/powercell-pulled': page(
    'Zentrix pulls PowerCell 9 packs over fire risk',
    'Gadget Weekly',
    [
      'Owners of the PowerCell 9 should stop charging their battery packs now: Zentrix announced a recall of 40,000 units because of a fire risk from overheating.',
      'The recall covers packs made between March and September and sold across Europe, according to the notice.',
      'Zentrix said it had informed the product-safety regulator and that refunds are available in every store.',
    ],
  ),
};

/** What each service answers now: a test changes its own. */
const answer: Record<
  string,
  () => { status: number; headers?: Record<string, string>; body: string }
> = {};
const rss = (items: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>search</title>${items}</channel></rss>`;

function reset() {
  // Reddit links the recall already read: known by its address, not fetched again.
  answer.reddit = () => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      kind: 'Listing',
      data: {
        after: null,
        children: [
          {
            kind: 't3',
            data: {
              name: 't3_z1',
              title: 'Zentrix recalls its PowerCell 9 packs',
              selftext: '',
              url: `${base}/news/zentrix-recall`,
              permalink: '/r/ebikes/comments/z1/zentrix_recalls/',
              author: 'rider',
              subreddit: 'ebikes',
              created_utc: 1795860000,
              score: 80,
              num_comments: 30,
              is_self: false,
            },
          },
        ],
      },
    }),
  });
  answer.mastodon = () => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([
      {
        id: '113000000000000020',
        created_at: '2026-11-28T11:00:00.000Z',
        uri: 'https://social.example/users/cyclist/statuses/113000000000000020',
        url: 'https://social.example/@cyclist/113000000000000020',
        content:
          '<p>Zentrix opened its flagship store in Lyon today and the queue went round the block. <a href="https://social.example/tags/zentrix">#<span>Zentrix</span></a></p>',
        replies_count: 14,
        reblogs_count: 40,
        favourites_count: 120,
        account: { acct: 'cyclist@social.example', followers_count: 900 },
      },
      {
        // It shares the recall, in words of its own: it joins that story.
        id: '113000000000000018',
        created_at: '2026-11-28T10:20:00.000Z',
        uri: 'https://social.example/users/neighbour/statuses/113000000000000018',
        url: 'https://social.example/@neighbour/113000000000000018',
        content: `<p>Check your battery before charging tonight: <a href="${base}/news/zentrix-recall" rel="nofollow noopener">the recall</a> <a href="https://social.example/tags/zentrix" class="mention hashtag">#<span>Zentrix</span></a></p>`,
        replies_count: 2,
        reblogs_count: 4,
        favourites_count: 9,
        account: { acct: 'neighbour@social.example', followers_count: 40 },
      },
      {
        id: '113000000000000019',
        created_at: '2026-11-28T10:30:00.000Z',
        uri: 'https://social.example/users/quiet/statuses/113000000000000019',
        url: 'https://social.example/@quiet/113000000000000019',
        content:
          '<p>Thinking about a <a href="https://social.example/tags/zentrix">#Zentrix</a> bike.</p>',
        replies_count: 0,
        reblogs_count: 0,
        favourites_count: 1,
        account: { acct: 'quiet@social.example', followers_count: 12 },
      },
    ]),
  });
  answer.google = () => ({
    status: 200,
    headers: { 'content-type': 'application/rss+xml' },
    body: rss(
      `<item><title>Zentrix recalls 40,000 PowerCell 9 battery packs - Daily Ledger</title><link>${base}/rss/articles/CBMi1?oc=5</link><guid isPermaLink="false">CBMi1</guid><pubDate>Sat, 28 Nov 2026 09:00:00 GMT</pubDate><source url="${base}">Daily Ledger</source></item>`,
    ),
  });
  answer.bing = () => ({
    status: 200,
    headers: { 'content-type': 'application/rss+xml' },
    body: rss(
      `<item><title>Zentrix recalls battery packs</title><link>${base}/news/apiclick.aspx?ref=FexRss&amp;url=${encodeURIComponent(`${base}/news/zentrix-recall`)}&amp;c=1</link><pubDate>Sat, 28 Nov 2026 09:05:00 GMT</pubDate></item>`,
    ),
  });
  answer.gdelt = () => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      articles: [
        {
          url: `${base}/tech/powercell-pulled`,
          title: 'Zentrix pulls PowerCell 9 packs over fire risk',
          seendate: '20261128T100000Z',
          domain: '127.0.0.1',
          language: 'English',
        },
        {
          url: `${base}/news/zentrix-recall`,
          title: 'Zentrix recalls 40,000 PowerCell 9 battery packs',
          seendate: '20261128T091500Z',
          domain: '127.0.0.1',
          language: 'English',
        },
      ],
    }),
  });
  answer.hn = () => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      hits: [
        {
          objectID: '9001',
          created_at_i: 1795860000,
          title: 'Ask HN: Zentrix support has stopped answering warranty claims',
          url: null,
          author: 'owner42',
          story_text:
            'My Zentrix e-bike battery died after four months and Zentrix support has not answered my warranty claim in five weeks.<p>Several people in our local club report the same: Zentrix stopped replying to warranty claims after the recall.',
          points: 48,
          num_comments: 31,
        },
        {
          objectID: '9002',
          created_at_i: 1795856400,
          title: 'Show HN: my Zentrix battery case',
          url: null,
          author: 'maker',
          story_text: 'I printed a case for my Zentrix battery.',
          points: 2,
          num_comments: 0,
        },
      ],
      nbHits: 2,
      page: 0,
      nbPages: 1,
      hitsPerPage: 50,
    }),
  });
}

beforeAll(async () => {
  site = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (req.method === 'POST' && url.pathname.startsWith('/slack-')) {
      let body = '';
      for await (const chunk of req) body += chunk;
      slackPosts.push({ path: url.pathname, body: JSON.parse(body) });
      return res.writeHead(200).end('ok');
    }
    asked.push(`${url.pathname}${url.search}`);
    const send = (a: { status: number; headers?: Record<string, string>; body: string }) =>
      res.writeHead(a.status, a.headers ?? {}).end(a.body);
    if (url.pathname === '/rss/search') return send(answer.google!());
    if (url.pathname === '/news/search') return send(answer.bing!());
    if (url.pathname === '/api/v2/doc/doc') return send(answer.gdelt!());
    if (url.pathname === '/api/v1/search_by_date') return send(answer.hn!());
    if (url.pathname === '/api/v1/timelines/tag/zentrix') return send(answer.mastodon!());
    if (url.pathname === '/search.json') return send(answer.reddit!());
    // Google News' links lead to the publisher only through a script, as Google's do.
    if (url.pathname.startsWith('/rss/articles/')) {
      return res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          '<html><body><c-wiz data-n-a-sg="x"></c-wiz><script>location.href="…"</script></body></html>',
        );
    }
    // A newsroom announcing its feed, a blog with a feed at a common path only.
    if (url.pathname === '/newsroom/') {
      return res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<html><head><link rel="alternate" type="application/rss+xml" title="Press" href="/newsroom/press.xml"><link rel="stylesheet" href="/s.css"></head><body>Press</body></html>`,
        );
    }
    if (url.pathname === '/newsroom/press.xml' || url.pathname === '/blogsite/feed') {
      return res
        .writeHead(200, { 'content-type': 'application/rss+xml' })
        .end(
          `<?xml version="1.0"?><rss version="2.0"><channel><title>Zentrix press</title><item><title>Zentrix opens Lyon store</title><link>${base}/newsroom/lyon</link><guid>p1</guid></item></channel></rss>`,
        );
    }
    // robots.txt only while a test sets it: every site here shares one origin.
    if (url.pathname === '/robots.txt' && robots) {
      return res.writeHead(200, { 'content-type': 'text/plain' }).end(robots);
    }
    if (url.pathname === '/sitemaps/news.xml') {
      return res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(
          `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"><url><loc>${base}/news/zentrix-recall</loc><news:news><news:publication><news:name>Daily Ledger</news:name><news:language>en</news:language></news:publication><news:publication_date>2026-11-28T08:00:00Z</news:publication_date><news:title>Zentrix recalls 40,000 PowerCell 9 battery packs</news:title></news:news></url></urlset>`,
        );
    }
    if (url.pathname === '/blogsite/') {
      return res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<html><body>Blog</body></html>');
    }
    const html = PAGES[url.pathname];
    if (html) return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    res.writeHead(404).end();
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  const port = (site.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  const urls = {
    FETCH_ALLOW_HOSTS: `127.0.0.1:${port}`,
    CONNECTORS: 'google-news,bing-news,gdelt,hacker-news,reddit,mastodon',
    GOOGLE_NEWS_URL: base,
    BING_NEWS_URL: base,
    GDELT_URL: base,
    HN_SEARCH_URL: base,
    MASTODON_URL: base,
    REDDIT_URL: base,
  };
  svc = await startService(urls, { runJobs: false });
  const db = svc.app.config.database;
  env = { ...urls, DATABASE_URL: db.dialect === 'postgres' ? db.url : db.file };
  account = await createAccount(svc.app, 'Zentrix', 'partner');
  key = (await createKey(svc.app, { accountId: account, role: 'owner', scope: null, actor: 't' }))
    .key;
});
afterAll(async () => {
  site.close();
  await svc.close();
});

let brands = 0;
/** A brand named Zentrix of the test's own, added as an operator adds one. */
async function zentrix() {
  const host = `zentrix-${++brands}.example`;
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
  const brand = await requireBrandByHost(svc.app, host);
  const stories = async () =>
    (await svc.request('GET', '/v1/stories', { key, query: { brand: host } })).body.stories as {
      event_uri: string;
      title: string;
      sources_count?: number;
    }[];
  return { host, brand, stories };
}

const makeDue = (brandIds: string[], only?: string[]) => makeConnectorsDue(svc.app, brandIds, only);
const pollBrand = (brandId: string, only?: string[]) => pollConnectors(svc.app, brandId, only);

describe('connectors', () => {
  it('find a brand’s coverage from the moment it is added: news, a forum thread and a social post, each article read once', async () => {
    reset();
    const { host, brand, stories } = await zentrix();
    const start = asked.length;
    const on = await listConnectors(svc.app, brand.id);
    expect(on.map((c) => [c.connector, c.enabled])).toEqual([
      ['bing-news', true],
      ['gdelt', true],
      ['google-news', true],
      ['hacker-news', true],
      ['mastodon', true],
      ['reddit', true],
    ]);
    // One connector after another, so which finds an article first is known; each poll is
    // enqueued once though two schedulers run at the same instant.
    for (const connector of [
      'google-news',
      'bing-news',
      'gdelt',
      'hacker-news',
      'reddit',
      'mastodon',
    ]) {
      expect(await pollBrand(brand.id, [connector])).toBe(1);
    }

    const list = await stories();
    // Three kinds of source: the recall in the news (its headline from Google News, its two
    // articles' pages from Bing and GDELT), a forum thread and a social post.
    expect(list).toHaveLength(3);
    const articles = await svc.app.db
      .selectFrom('articles as a')
      .innerJoin('stories as s', 's.id', 'a.story_id')
      .select(['s.event_uri', 'a.url', 'a.type', 'a.publisher'])
      .where('s.brand_id', '=', brand.id)
      .orderBy('a.type')
      .orderBy('a.url')
      .execute();
    expect(articles.map(({ event_uri: _, ...a }) => a)).toEqual([
      { url: 'https://news.ycombinator.com/item?id=9001', type: 'forum', publisher: 'Hacker News' },
      { url: `${base}/news/zentrix-recall`, type: 'news', publisher: 'Daily Ledger' },
      { url: `${base}/rss/articles/CBMi1?oc=5`, type: 'news', publisher: 'Daily Ledger' },
      { url: `${base}/tech/powercell-pulled`, type: 'news', publisher: 'Gadget Weekly' },
      {
        url: 'https://social.example/@cyclist/113000000000000020',
        type: 'social',
        publisher: 'Mastodon (social.example)',
      },
      {
        url: 'https://social.example/@neighbour/113000000000000018',
        type: 'social',
        publisher: 'Mastodon (social.example)',
      },
    ]);
    // The post sharing the recall is the recall story's spread, as its news articles are.
    const recallStory = articles.find((a) => a.url === `${base}/news/zentrix-recall`)!.event_uri;
    expect(
      articles.find((a) => a.url === 'https://social.example/@neighbour/113000000000000018')!
        .event_uri,
    ).toBe(recallStory);
    // The three news articles are one story.
    expect(new Set(articles.filter((a) => a.type === 'news').map((a) => a.event_uri)).size).toBe(1);
    // Each publisher's page was fetched once, whichever connectors listed it (GDELT's
    // listing of the recall was known as the article Bing led to), and Google's
    // script page never.
    const fetched = asked.slice(start);
    expect(fetched.filter((a) => a === '/news/zentrix-recall')).toHaveLength(1);
    expect(fetched.filter((a) => a === '/tech/powercell-pulled')).toHaveLength(1);
    expect(fetched.filter((a) => a.startsWith('/rss/articles/'))).toEqual([]);
    // A post with little reach makes no story; it is remembered with why.
    const small = await svc.app.db
      .selectFrom('connector_items')
      .select('outcome')
      .where('item_key', '=', '9002')
      .where('brand_connector_id', '=', `${brand.id}.hacker-news`)
      .executeTakeFirstOrThrow();
    expect(small.outcome).toBe('held: little reach (2)');
    expect(POST_REACH).toBeGreaterThan(2);

    // The overview counts mentions by source type.
    const byType = await svc.app.db
      .selectFrom('coverage_days')
      .select(['value', 'mentions'])
      .where('brand_id', '=', brand.id)
      .where('facet', '=', 'type')
      .orderBy('value')
      .execute();
    expect(byType.map((r) => [r.value, Number(r.mentions)])).toEqual([
      ['forum', 1],
      ['news', 3],
      ['social', 2],
    ]);

    // Every mention, free, with where it came from and the sentence naming the brand.
    const mentions = await svc.request('GET', '/v1/mentions', { key, query: { brand: host } });
    expect(mentions.status).toBe(200);
    // The six stories' sources, and the two posts with too little reach for a story alone,
    // kept as mentions with no story.
    expect(mentions.body.mentions).toHaveLength(8);
    expect(
      mentions.body.mentions
        .filter((m: { event_uri: string | null }) => m.event_uri === null)
        .map((m: { url: string }) => m.url)
        .sort(),
    ).toEqual([
      'https://news.ycombinator.com/item?id=9002',
      'https://social.example/@quiet/113000000000000019',
    ]);
    // Without a brand: every brand the key reads, each row saying which.
    const all = await svc.request('GET', '/v1/mentions', { key, query: { limit: 200 } });
    expect(all.status).toBe(200);
    expect(all.body.brand).toBeNull();
    expect(all.body.mentions.filter((m: { brand: string }) => m.brand === host)).toHaveLength(8);
    // Filters by language and sentiment hold what they say.
    const english = await svc.request('GET', '/v1/mentions', {
      key,
      query: { brand: host, language: 'en' },
    });
    expect(english.status).toBe(200);
    for (const m of english.body.mentions) expect(m.language).toBe('en');
    const negative = await svc.request('GET', '/v1/mentions', {
      key,
      query: { brand: host, sentiment: 'negative' },
    });
    for (const m of negative.body.mentions) expect(m.sentiment).toBeLessThan(-0.2);
    const social = await svc.request('GET', '/v1/mentions', {
      key,
      query: { brand: host, type: 'social' },
    });
    expect(social.body.mentions).toHaveLength(3);
    expect(social.body.mentions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          url: 'https://social.example/@cyclist/113000000000000020',
          type: 'social',
          publisher: 'Mastodon (social.example)',
          // A post's author is kept: the story's sources and the mentions show it.
          author: 'cyclist@social.example',
          sentence:
            'Zentrix opened its flagship store in Lyon today and the queue went round the block.',
          event_uri: expect.stringMatching(/^evt_/),
        }),
      ]),
    );
    // A page at a time, newest found first, each row once.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await svc.request('GET', '/v1/mentions', {
        key,
        query: { brand: host, limit: 2, cursor },
      });
      expect(page.status).toBe(200);
      seen.push(...page.body.mentions.map((m: { url: string }) => m.url));
      cursor = page.body.next_cursor ?? undefined;
    } while (cursor);
    expect(new Set(seen).size).toBe(8);
    expect(
      (await svc.request('GET', '/v1/mentions', { key, query: { brand: host, cursor: 'nope' } }))
        .status,
    ).toBe(400);

    // Eight mentions in the hour against none usually: a spike, told once to the team's
    // webhooks and shown with the mentions.
    expect(SPIKE_MIN).toBeLessThanOrEqual(8);
    await addEndpoint(svc.app, {
      accountId: account,
      url: `${base}/hook-${host}`,
      events: ['mentions.spike'],
      actor: 'test',
    });
    // And a person's alert rule asking for spikes, on Slack.
    const user = await addUser(svc.app, {
      accountId: account,
      email: `watcher-${host}@zentrix.example`,
      password: 'correct horse battery',
      role: 'member',
    });
    await createAlertRule(
      svc.app.db,
      { accountId: account, userId: user },
      {
        name: 'Spikes',
        brands: [host],
        minSeverity: 'critical',
        topics: [],
        sentimentBelow: null,
        onEscalation: false,
        onSpike: true,
        email: false,
        slackUrl: `${base}/slack-${host}`,
        teamsUrl: null,
        webhooks: false,
      },
      new Date().toISOString(),
    );
    expect(await announceSpikes(svc.app)).toBeGreaterThanOrEqual(1);
    const told = await svc.app.db
      .selectFrom('audit_log')
      .select('details')
      .where('brand_id', '=', brand.id)
      .where('action', '=', 'mentions.spike')
      .execute();
    expect(told).toHaveLength(1);
    expect(JSON.parse(told[0]!.details)).toEqual({ brand: host, mentions: 8, usual: 0 });
    await announceSpikes(svc.app);
    expect(
      await svc.app.db
        .selectFrom('audit_log')
        .select('id')
        .where('brand_id', '=', brand.id)
        .where('action', '=', 'mentions.spike')
        .execute(),
    ).toHaveLength(1);
    const hook = await svc.app.db
      .selectFrom('webhook_deliveries')
      .select(['event_type', 'payload'])
      .where('event_type', '=', 'mentions.spike')
      .execute();
    expect(hook.map((h) => JSON.parse(h.payload).data)).toContainEqual(
      expect.objectContaining({ brand: host, mentions: 8, usual: 0 }),
    );
    // The rule's alert, once, whatever its minimum severity: on Slack, linking the mentions.
    const alerts = await svc.app.db
      .selectFrom('alerts')
      .select(['trigger', 'headline', 'link', 'story_id'])
      .where('brand_id', '=', brand.id)
      .execute();
    expect(alerts).toEqual([
      {
        trigger: 'spike',
        headline: `8 mentions of ${host} in the last hour`,
        link: expect.stringMatching(new RegExp(`/app/mentions\\?brand=${host}$`)),
        story_id: expect.stringMatching(/^spike:/),
      },
    ]);
    await svc.app.jobs.drain();
    const slack = slackPosts.filter((p) => p.path === `/slack-${host}`);
    expect(slack).toHaveLength(1);
    expect(slack[0]!.body.text).toBe(`[spike] 8 mentions of ${host} in the last hour (${host})`);
    expect(JSON.stringify(slack[0]!.body.blocks)).toContain('Open the mentions');
    const withSpike = await svc.request('GET', '/v1/mentions', { key, query: { brand: host } });
    expect(withSpike.body.spikes).toEqual([
      expect.objectContaining({ brand: host, mentions: 8, usual: 0 }),
    ]);

    const status = await brs(env, 'source', 'list', '--brand', host);
    expect(status.code).toBe(0);
    const byId = Object.fromEntries(
      (status.out.connectors as { connector: string }[]).map((c) => [c.connector, c]),
    );
    expect(byId['hacker-news']).toMatchObject({
      enabled: true,
      last_status: '200: 2 new items',
      items_found: 2,
    });
    expect(byId.gdelt).toMatchObject({ enabled: true, last_error: null });

    // Polled again with nothing new: nothing is fetched or added again; the cursors moved.
    const before = asked.length;
    await pollBrand(brand.id);
    expect(
      asked.slice(before).filter((a) => !/search|doc\/doc|timelines\/tag|\/hook-/.test(a)),
    ).toEqual([]);
    expect(asked.slice(before).find((a) => a.startsWith('/api/v1/timelines/tag/'))).toContain(
      'min_id=113000000000000020',
    );
    expect(asked.slice(before).find((a) => a.startsWith('/api/v2/doc/doc'))).toContain(
      'startdatetime=20261128100001',
    );
    expect(asked.slice(before).find((a) => a.startsWith('/api/v1/search_by_date'))).toContain(
      encodeURIComponent('created_at_i>1795860000'),
    );
    expect(await stories()).toHaveLength(3);
  });

  it('wait as a service asks (429, Retry-After), record its failures, and read again once it answers', async () => {
    reset();
    const { brand } = await zentrix();
    answer.gdelt = () => ({ status: 429, headers: { 'retry-after': '120' }, body: 'slow down' });
    answer.hn = () => ({ status: 503, body: 'down' });
    answer.bing = () => ({
      status: 200,
      headers: { 'content-type': 'text/plain' },
      body: 'not a feed',
    });
    await pollBrand(brand.id, ['gdelt', 'hacker-news', 'bing-news']);
    const rows = Object.fromEntries(
      (await listConnectors(svc.app, brand.id)).map((c) => [c.connector, c]),
    );
    expect(rows.gdelt).toMatchObject({ last_status: 'HTTP 429' });
    expect(rows.gdelt!.last_error).toMatch(/^GDELT asked to wait until /);
    expect(rows['hacker-news']).toMatchObject({
      last_status: 'HTTP 503',
      last_error: 'Hacker News answered HTTP 503',
    });
    expect(rows['hacker-news']!.failing_since).not.toBeNull();
    expect(rows['bing-news']).toMatchObject({ last_status: 'unreadable' });
    // GDELT is held for every brand until Retry-After has passed.
    const hold = await svc.app.db
      .selectFrom('connector_backoff')
      .selectAll()
      .where('connector', '=', 'gdelt')
      .executeTakeFirstOrThrow();
    expect(Date.parse(hold.until) - Date.now()).toBeGreaterThan(100_000);
    answer.gdelt = () => ({ status: 200, body: '{}' });
    expect(await pollBrand(brand.id, ['gdelt'])).toBe(0);

    // An hour failing: `brs status` warns.
    await svc.app.db
      .updateTable('brand_connectors')
      .set({ failing_since: '2000-01-01T00:00:00.000Z' })
      .where('id', '=', `${brand.id}.hacker-news`)
      .execute();
    const status = await brs(env, 'status');
    expect(status.out.connectors.failing).toBeGreaterThanOrEqual(1);
    // The service answers again: the failure clears.
    answer.hn = () => ({ status: 200, body: '{"hits":[]}' });
    await pollBrand(brand.id, ['hacker-news']);
    const hn = (await listConnectors(svc.app, brand.id)).find(
      (c) => c.connector === 'hacker-news',
    )!;
    expect(hn).toMatchObject({
      last_status: '200: 0 new items',
      last_error: null,
      failing_since: null,
    });
    await svc.app.db.deleteFrom('connector_backoff').execute();
  });

  it('know a Google News headline as the article another connector already read', async () => {
    reset();
    const { brand, stories } = await zentrix();
    expect(await pollBrand(brand.id, ['bing-news'])).toBe(1);
    expect(await pollBrand(brand.id, ['google-news'])).toBe(1);
    const held = await svc.app.db
      .selectFrom('articles as a')
      .innerJoin('stories as s', 's.id', 'a.story_id')
      .select('a.url')
      .where('s.brand_id', '=', brand.id)
      .execute();
    expect(held.map((a) => a.url)).toEqual([`${base}/news/zentrix-recall`]);
    expect(await stories()).toHaveLength(1);
  });

  it('read a service’s backlog as history at the first answer read, even after a failed first poll', async () => {
    reset();
    const { brand, stories } = await zentrix();
    answer.hn = () => ({ status: 503, body: 'down' });
    await pollBrand(brand.id, ['hacker-news']);
    // Then fifteen text posts with reach, newest first: only the ten newest are read.
    const hits = Array.from({ length: 15 }, (_, i) => ({
      objectID: `h${15 - i}`,
      created_at_i: 1795860000 - i * 60,
      title: `Ask HN: Zentrix question ${15 - i}`,
      url: null,
      author: 'a',
      story_text: `Zentrix support question number ${15 - i} from a long-time owner of the battery.`,
      points: 20,
      num_comments: 5,
    }));
    answer.hn = () => ({ status: 200, body: JSON.stringify({ hits }) });
    await pollBrand(brand.id, ['hacker-news']);
    const outcomes = await svc.app.db
      .selectFrom('connector_items')
      .select(['item_key', 'outcome'])
      .where('brand_connector_id', '=', `${brand.id}.hacker-news`)
      .execute();
    const history = outcomes.filter((o) => o.outcome === 'skipped: before monitoring began');
    expect(history.map((o) => o.item_key).sort()).toEqual(['h1', 'h2', 'h3', 'h4', 'h5']);
    expect(outcomes).toHaveLength(15);
    expect((await stories()).length).toBeGreaterThan(0);
  });

  it('keep each connector within its rate, one window a minute across processes, spread over it', async () => {
    reset();
    const extra = [];
    for (let i = 0; i < 11; i++) extra.push((await zentrix()).brand.id);
    await makeDue(extra, ['reddit']);
    await svc.app.db.deleteFrom('connector_backoff').execute();
    // Two processes at the same minute: one takes Reddit's window and claims its ten.
    const claimed = await Promise.all([
      scheduleDueConnectors(svc.app),
      scheduleDueConnectors(svc.app),
    ]);
    expect(claimed.sort((a, b) => a - b)).toEqual([0, 10]);
    expect(await scheduleDueConnectors(svc.app)).toBe(0);
    const runs = (
      await svc.app.db
        .selectFrom('jobs')
        .select('run_at')
        .where('name', '=', 'connector.poll')
        .where('status', '=', 'queued')
        .orderBy('run_at')
        .execute()
    ).map((j) => Date.parse(j.run_at));
    expect(runs).toHaveLength(10);
    // Six seconds apart: Reddit's ten a minute, at a steady pace.
    expect(runs.at(-1)! - runs[0]!).toBeGreaterThanOrEqual(50_000);
    await svc.app.db
      .deleteFrom('jobs')
      .where('name', '=', 'connector.poll')
      .where('status', '=', 'queued')
      .execute();
  });

  it('make a poll already queued wait for a 429’s Retry-After, and go with their brand', async () => {
    reset();
    const { host, brand } = await zentrix();
    const until = new Date(Date.now() + 300_000).toISOString();
    await svc.app.db
      .insertInto('connector_backoff')
      .values({ connector: 'gdelt', until, reason: 'HTTP 429' })
      .onConflict((oc) => oc.column('connector').doUpdateSet({ until, reason: 'HTTP 429' }))
      .execute();
    const before = asked.length;
    expect(await pollConnectorJob(svc.app, { source: `${brand.id}.gdelt` })).toEqual({
      status: 'waiting',
    });
    expect(asked.slice(before)).toEqual([]);
    const row = await svc.app.db
      .selectFrom('brand_connectors')
      .select('next_poll_at')
      .where('id', '=', `${brand.id}.gdelt`)
      .executeTakeFirstOrThrow();
    expect(row.next_poll_at).toBe(until);
    await svc.app.db.deleteFrom('connector_backoff').execute();

    const gone = await brs(env, 'brand', 'delete', '--host', host);
    expect(gone.code).toBe(0);
    const left = await svc.app.db
      .selectFrom('brand_connectors')
      .select('id')
      .where('brand_id', '=', brand.id)
      .execute();
    expect(left).toEqual([]);
  });

  it('are shown on the portal’s brand page, each with its last search, and an admin switches one', async () => {
    reset();
    const { host, brand } = await zentrix();
    await pollBrand(brand.id, ['hacker-news']);
    await addUser(svc.app, {
      accountId: account,
      email: `admin-${host}@zentrix.example`,
      password: 'correct horse battery',
      role: 'admin',
    });
    const c = new PortalClient(svc.url);
    await c.signIn(`admin-${host}@zentrix.example`, 'correct horse battery');
    const page = await c.get('/app/brands');
    expect(page.html).toContain('Coverage found for it');
    expect(page.html).toMatch(
      /Hacker News <span class="badge">on<\/span><br><span class="muted small">200: 2 new items/,
    );
    const off = await c.post('/app/brands/connectors', {
      brand: host,
      connector: 'gdelt',
      enabled: 'off',
    });
    expect(off.status).toBe(303);
    const row = (await listConnectors(svc.app, brand.id)).find((x) => x.connector === 'gdelt')!;
    expect(row.enabled).toBe(false);
    const unknown = await c.post('/app/brands/connectors', {
      brand: host,
      connector: 'myspace',
      enabled: 'off',
    });
    expect(unknown.status).toBe(400);
    // An admin finds a site's feeds from the same page, each offered with an Add button.
    const discovered = await c.post('/app/brands/discover', {
      brand: host,
      url: `${base}/newsroom/`,
    });
    expect(discovered.status).toBe(200);
    expect(discovered.html).toContain('Zentrix press');
    expect(discovered.html).toContain(`aria-label="Add ${base}/newsroom/press.xml"`);
    // The Ask HN thread is listed with its author among the mentions (free on every plan;
    // an unlocked story's sources show it too).
    const mentions = await c.get(`/app/mentions?brand=${host}`);
    expect(mentions.html).toContain('<div class="small">by owner42</div>');
    // An admin names what a connector reads on the same page; a wrong id is refused in words.
    const named = await c.post('/app/brands/connector-targets', {
      brand: host,
      connector: 'mastodon',
      targets: 'x',
    });
    expect(named.status).toBe(400);
  });

  it('are given to a brand added another way (an agency client’s onboarding) at the next seeding', async () => {
    const id = `brd_seed${++brands}`;
    await svc.app.db
      .insertInto('brands')
      .values({
        id,
        account_id: account,
        host: `seeded-${brands}.example`,
        name: 'Zentrix',
        verified: 1,
        verified_at: null,
        aliases: '[]',
        created_at: new Date().toISOString(),
      })
      .execute();
    expect(await listConnectors(svc.app, id)).toEqual([]);
    // Two processes seeding at once: each row once.
    await Promise.all([seedMissing(svc.app), seedMissing(svc.app)]);
    const rows = await listConnectors(svc.app, id);
    expect(rows.map((r) => [r.connector, r.enabled])).toEqual([
      ['bing-news', true],
      ['gdelt', true],
      ['google-news', true],
      ['hacker-news', true],
      ['mastodon', true],
      ['reddit', true],
    ]);
  });

  it('find the feeds a site offers, announced or at a common path, and add them', async () => {
    const { host, brand } = await zentrix();
    const found = await brs(
      env,
      'source',
      'discover',
      '--brand',
      host,
      '--url',
      `${base}/newsroom/`,
      '--add',
    );
    expect(found.code).toBe(0);
    expect(found.out.feeds).toEqual([
      { url: `${base}/newsroom/press.xml`, title: 'Zentrix press', via: 'announced', items: 1 },
    ]);
    expect(found.out.added).toHaveLength(1);
    const blog = await brs(
      env,
      'source',
      'discover',
      '--brand',
      host,
      '--url',
      `${base}/blogsite/`,
    );
    expect(blog.out.feeds).toEqual([
      expect.objectContaining({ url: `${base}/blogsite/feed`, via: 'common path', items: 1 }),
    ]);
    expect(blog.out.added).toEqual([]);
    const none = await brs(
      env,
      'source',
      'discover',
      '--brand',
      host,
      '--url',
      `${base}/nothing-here/`,
    );
    expect(none.out.feeds).toEqual([]);
    const refused = await brs(
      env,
      'source',
      'discover',
      '--brand',
      host,
      '--url',
      'http://10.0.0.1/',
    );
    expect(refused.code).not.toBe(0);
    const sources = await brs(env, 'source', 'list', '--brand', host);
    expect(sources.out.sources.map((f: { url: string }) => f.url)).toEqual([
      `${base}/newsroom/press.xml`,
    ]);
    expect(brand.id).toBeTruthy();
  });

  it('find a publisher’s news sitemap from its robots.txt, and follow a new brand’s newsroom', async () => {
    robots = `User-agent: *\nDisallow: /private/\nSitemap: ${base}/sitemap.xml\nSitemap: ${base}/sitemaps/news.xml\n`;
    try {
      const { host, brand } = await zentrix();
      const found = await brs(
        env,
        'source',
        'discover',
        '--brand',
        host,
        '--url',
        `${base}/blogsite/`,
      );
      expect(found.out.feeds).toEqual([
        expect.objectContaining({ url: `${base}/blogsite/feed`, via: 'common path' }),
        {
          url: `${base}/sitemaps/news.xml`,
          title: 'Daily Ledger',
          via: 'news sitemap',
          items: 1,
        },
      ]);
      // Adding the brand asked for its newsroom to be sought.
      const job = await svc.app.db
        .selectFrom('jobs')
        .select('payload')
        .where('name', '=', 'brand.newsroom')
        .where('payload', '=', JSON.stringify({ brand: brand.id }))
        .executeTakeFirst();
      expect(job).toBeDefined();
      // Sought on its site (here the local server's newsroom), its feeds are followed:
      // the press feed first, the news sitemap second.
      const followed = await followNewsroom(svc.app, brand, `${base}/newsroom/`);
      expect(followed.followed).toEqual([
        `${base}/newsroom/press.xml`,
        `${base}/sitemaps/news.xml`,
      ]);
      const audit = await svc.app.db
        .selectFrom('audit_log')
        .select(['actor', 'action'])
        .where('brand_id', '=', brand.id)
        .where('action', '=', 'source.added')
        .execute();
      expect(audit).toEqual([
        { actor: 'monitor', action: 'source.added' },
        { actor: 'monitor', action: 'source.added' },
      ]);
      // A brand with feeds of its team's choosing is left as it is.
      expect(await followNewsroom(svc.app, brand, `${base}/newsroom/`)).toEqual({ followed: [] });
      // A site that is no public address offers nothing, and is no failure.
      const other = await zentrix();
      expect(await followNewsroom(svc.app, other.brand, 'http://10.0.0.1/')).toEqual({
        followed: [],
      });
    } finally {
      robots = null;
    }
  });

  it('join a post quoting coverage a story holds, without a link, to that story', async () => {
    reset();
    const { brand } = await zentrix();
    await pollBrand(brand.id, ['bing-news', 'gdelt']);
    const recall = await svc.app.db
      .selectFrom('articles as a')
      .innerJoin('stories as s', 's.id', 'a.story_id')
      .select('s.event_uri')
      .where('s.brand_id', '=', brand.id)
      .where('a.url', '=', `${base}/news/zentrix-recall`)
      .executeTakeFirstOrThrow();
    answer.mastodon = () => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        {
          id: '113000000000000030',
          created_at: '2026-11-28T12:00:00.000Z',
          uri: 'https://social.example/users/reader/statuses/113000000000000030',
          url: 'https://social.example/@reader/113000000000000030',
          content:
            '<p>“Zentrix recalls 40,000 PowerCell 9 battery packs sold across Europe after reports that the packs overheat while charging.” Owners: stop charging them tonight. <a href="https://social.example/tags/zentrix" class="mention hashtag">#Zentrix</a></p>',
          replies_count: 3,
          reblogs_count: 25,
          favourites_count: 30,
          account: { acct: 'reader@social.example', followers_count: 300 },
        },
      ]),
    });
    await pollBrand(brand.id, ['mastodon']);
    const post = await svc.app.db
      .selectFrom('articles as a')
      .innerJoin('stories as s', 's.id', 'a.story_id')
      .select('s.event_uri')
      .where('a.url', '=', 'https://social.example/@reader/113000000000000030')
      .executeTakeFirstOrThrow();
    expect(post.event_uri).toBe(recall.event_uri);
  });

  it('can be switched off by the team, and on again', async () => {
    reset();
    const { host, brand } = await zentrix();
    const off = await brs(env, 'source', 'off', '--brand', host, '--connector', 'google-news');
    expect(off.code).toBe(0);
    expect(off.out.connector).toMatchObject({
      connector: 'google-news',
      enabled: false,
      next_poll_at: null,
    });
    expect(await pollBrand(brand.id, ['google-news'])).toBe(0);
    const unknown = await brs(env, 'source', 'off', '--brand', host, '--connector', 'twitter');
    expect(unknown.code).not.toBe(0);
    expect(JSON.stringify(unknown.out)).toMatch(/connector: must be one of/);
    await setConnector(svc.app, brand, 'google-news', true, 'operator');
    expect(await pollBrand(brand.id, ['google-news'])).toBe(1);
    // Switched on again after a while, it starts afresh: what came out meanwhile is history.
    await svc.app.db
      .updateTable('brand_connectors')
      .set({ cursor: '123' })
      .where('id', '=', `${brand.id}.hacker-news`)
      .execute();
    await setConnector(svc.app, brand, 'hacker-news', false, 'operator');
    await setConnector(svc.app, brand, 'hacker-news', true, 'operator');
    const again = await svc.app.db
      .selectFrom('brand_connectors')
      .select(['cursor', 'first_read_at', 'enabled'])
      .where('id', '=', `${brand.id}.hacker-news`)
      .executeTakeFirstOrThrow();
    expect(again).toEqual({ cursor: null, first_read_at: null, enabled: 1 });
  });
});
