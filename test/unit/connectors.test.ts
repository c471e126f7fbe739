import { describe, expect, it } from 'vitest';
import { appStore } from '../../src/connectors/app-store.js';
import { bingNews } from '../../src/connectors/bing-news.js';
import { type Ask, brandQuery, orQuery } from '../../src/connectors/connector.js';
import { gdelt } from '../../src/connectors/gdelt.js';
import { googleNews } from '../../src/connectors/google-news.js';
import { hackerNews } from '../../src/connectors/hacker-news.js';
import { hashtagOf, mastodon } from '../../src/connectors/mastodon.js';
import { reddit } from '../../src/connectors/reddit.js';
import { trustpilot } from '../../src/connectors/trustpilot.js';
import { x } from '../../src/connectors/x.js';
import { youtube } from '../../src/connectors/youtube.js';
import { youtubeSearch } from '../../src/connectors/youtube-search.js';
import { retryAfterMs } from '../../src/domain/connectors.js';

/**
 * Issue 43: each connector's request and how it reads its service's answer. The samples
 * are written here in the shape the services document (no third-party text).
 */
const now = new Date('2026-11-29T12:00:00Z');
const acme = brandQuery({
  host: 'acme.com',
  name: 'Acme',
  aliases: ['Acme Corp', 'Acme'],
  match: { exclude: ['Acme Road'] },
});

describe('the brand as a query', () => {
  it('names the brand and its aliases once each, and excludes what its policy excludes', () => {
    expect(acme).toEqual({ names: ['Acme', 'Acme Corp'], exclude: ['Acme Road'] });
    expect(orQuery(acme)).toBe('"Acme" OR "Acme Corp" -"Acme Road"');
  });
});

/** What a connector is asked, for the brand above. */
const ask = (base: string, cursor: string | null, more: Partial<Ask> = {}): Ask => ({
  base,
  query: acme,
  cursor,
  now,
  targets: [],
  key: '',
  ...more,
});

const rss = (items: string) => `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>"Acme" - Google News</title><link>https://news.google.com</link>
${items}
</channel></rss>`;

describe('Google News', () => {
  it('asks the RSS search with the query, and reads each item as its headline and publisher', () => {
    const url = googleNews.request(ask('https://news.google.com', null))[0]!;
    expect(url).toBe(
      `https://news.google.com/rss/search?q=${encodeURIComponent('"Acme" OR "Acme Corp" -"Acme Road"')}&hl=en-US&gl=US&ceid=US:en`,
    );
    const page = googleNews.parse(
      rss(`<item><title>Acme recalls kettles - Daily Planet</title>
<link>https://news.google.com/rss/articles/CBMiAbc?oc=5</link>
<guid isPermaLink="false">CBMiAbc</guid><pubDate>Sat, 28 Nov 2026 09:00:00 GMT</pubDate>
<description>&lt;a href="https://news.google.com/rss/articles/CBMiAbc?oc=5"&gt;Acme recalls kettles&lt;/a&gt;&amp;nbsp;&amp;nbsp;&lt;font color="#6f6f6f"&gt;Daily Planet&lt;/font&gt;</description>
<source url="https://planet.example">Daily Planet</source></item>`),
      url,
      now,
    );
    expect(page.cursor).toBeNull();
    // Its link leads to the article only through a script: the headline is read as it is.
    expect(page.items).toEqual([
      {
        key: 'CBMiAbc',
        url: 'https://news.google.com/rss/articles/CBMiAbc?oc=5',
        title: 'Acme recalls kettles',
        published_at: '2026-11-28',
        given: {
          text: 'Acme recalls kettles',
          publisher: 'Daily Planet',
          author: null,
          type: 'news',
          reach: null,
        },
      },
    ]);
    expect(() => googleNews.parse('<html>rate limited</html>', url, now)).toThrow();
  });
});

describe('Bing News', () => {
  it('reads the article’s own address out of the click-counting link', () => {
    const url = bingNews.request(ask('https://www.bing.com', null))[0]!;
    expect(url).toMatch(/^https:\/\/www\.bing\.com\/news\/search\?q=.+&format=rss$/);
    const target = 'https://planet.example/news/acme-recall';
    const page = bingNews.parse(
      rss(`<item><title>Acme recalls kettles</title>
<link>http://www.bing.com/news/apiclick.aspx?ref=FexRss&amp;aid=&amp;tid=x&amp;url=${encodeURIComponent(target)}&amp;c=1&amp;mkt=en-us</link>
<pubDate>Sat, 28 Nov 2026 09:00:00 GMT</pubDate></item>
<item><title>Elsewhere</title><link>https://other.example/a</link></item>`),
      url,
      now,
    );
    expect(page.items.map((i) => [i.key, i.url])).toEqual([
      [target, target],
      ['https://other.example/a', 'https://other.example/a'],
    ]);
  });
});

describe('GDELT', () => {
  it('asks for the last day at first, then from the newest article seen', () => {
    const first = new URL(gdelt.request(ask('https://api.gdeltproject.org', null))[0]!);
    expect(first.pathname).toBe('/api/v2/doc/doc');
    expect(first.searchParams.get('query')).toBe('("Acme" OR "Acme Corp") -"Acme Road"');
    expect(first.searchParams.get('mode')).toBe('ArtList');
    expect(first.searchParams.get('format')).toBe('json');
    expect(first.searchParams.get('timespan')).toBe('1d');
    const next = new URL(gdelt.request(ask('https://api.gdeltproject.org', '20261128090001'))[0]!);
    expect(next.searchParams.get('startdatetime')).toBe('20261128090001');
    expect(next.searchParams.has('timespan')).toBe(false);
    // From the cursor oldest first, so a busy brand's articles are read through; at first
    // the day's newest.
    expect(next.searchParams.get('sort')).toBe('DateAsc');
    expect(first.searchParams.get('sort')).toBe('DateDesc');
  });

  it('reads the article list, an empty answer, and refuses an error or a changed format', () => {
    const page = gdelt.parse(
      JSON.stringify({
        articles: [
          {
            url: 'https://planet.example/b',
            url_mobile: '',
            title: 'Acme kettles',
            seendate: '20261128T093000Z',
            socialimage: '',
            domain: 'planet.example',
            language: 'English',
            sourcecountry: 'United Kingdom',
          },
          { url: 'https://planet.example/a', title: 'Acme', seendate: '20261128T090000Z' },
          { url: 'ftp://nowhere/c', title: 'not a page', seendate: '20261128T080000Z' },
        ],
      }),
      '',
      now,
    );
    expect(page.items.map((i) => [i.url, i.published_at])).toEqual([
      ['https://planet.example/b', '2026-11-28T09:30:00.000Z'],
      ['https://planet.example/a', '2026-11-28T09:00:00.000Z'],
    ]);
    // Answered oldest first (DateAsc), still read newest first.
    const asc = gdelt.parse(
      JSON.stringify({
        articles: [
          { url: 'https://planet.example/a', title: 'Acme', seendate: '20261128T090000Z' },
          { url: 'https://planet.example/b', title: 'Acme', seendate: '20261128T093000Z' },
        ],
      }),
      '',
      now,
    );
    expect(asc.items.map((i) => i.url)).toEqual([
      'https://planet.example/b',
      'https://planet.example/a',
    ]);
    expect(asc.cursor).toBe('20261128093001');
    expect(page.cursor).toBe('20261128093001');
    expect(gdelt.parse('{}', '', now)).toEqual({ items: [], cursor: null });
    expect(() => gdelt.parse('The specified phrase is too short.', '', now)).toThrow(
      /GDELT answered: The specified phrase is too short/,
    );
    expect(() => gdelt.parse(JSON.stringify({ articles: [{ link: 'x' }] }), '', now)).toThrow(
      /format/,
    );
  });
});

describe('Hacker News', () => {
  it('asks for stories since the newest seen, and reads links and text posts', () => {
    const url = new URL(hackerNews.request(ask('https://hn.algolia.com', '1795852800'))[0]!);
    expect(url.pathname).toBe('/api/v1/search_by_date');
    expect(url.searchParams.get('query')).toBe('Acme');
    expect(url.searchParams.get('tags')).toBe('story');
    expect(url.searchParams.get('numericFilters')).toBe('created_at_i>1795852800');
    const page = hackerNews.parse(
      JSON.stringify({
        hits: [
          {
            objectID: '401',
            created_at: '2026-11-28T10:00:00.000Z',
            created_at_i: 1795860000,
            title: 'Ask HN: Is Acme support down for everyone?',
            url: null,
            author: 'someone',
            story_text:
              'Acme&#x27;s support has not answered in <i>three</i> weeks.<p>Anyone else?',
            points: 30,
            num_comments: 12,
          },
          {
            objectID: '400',
            created_at_i: 1795856400,
            title: 'Acme recalls kettles',
            url: 'https://planet.example/news/acme-recall',
            author: 'other',
            points: 5,
            num_comments: 0,
          },
        ],
        nbHits: 2,
        page: 0,
        nbPages: 1,
        hitsPerPage: 50,
      }),
      '',
      now,
    );
    expect(page.cursor).toBe('1795860000');
    expect(page.items[0]).toEqual({
      key: '401',
      url: 'https://news.ycombinator.com/item?id=401',
      title: 'Ask HN: Is Acme support down for everyone?',
      published_at: '2026-11-28T10:00:00.000Z',
      given: {
        text: "Acme's support has not answered in three weeks.\n\nAnyone else?",
        publisher: 'Hacker News',
        author: 'someone',
        type: 'forum',
        reach: 42,
      },
    });
    expect(page.items[1]).toMatchObject({
      key: '400',
      url: 'https://planet.example/news/acme-recall',
    });
    expect(page.items[1]!.given).toBeUndefined();
    expect(() => hackerNews.parse('{"hits": "none"}', '', now)).toThrow(/format/);
  });

  it('reads a burst larger than one answer back, oldest read down to the cursor, then moves on', () => {
    const hit = (t: number) => ({
      objectID: String(t),
      created_at_i: t,
      title: 'Acme',
      url: `https://planet.example/${t}`,
    });
    const answer = (times: number[], nbHits: number) =>
      JSON.stringify({ hits: times.map(hit), nbHits, hitsPerPage: 2 });
    // Three new since 1000, two in the answer: the oldest read bounds the next ask.
    const first = hackerNews.parse(answer([1300, 1200], 3), '', now, '1000');
    expect(JSON.parse(first.cursor!)).toEqual({ since: 1000, until: 1200, next: 1300 });
    const asked = new URL(hackerNews.request(ask('https://hn.algolia.com', first.cursor))[0]!);
    expect(asked.searchParams.get('numericFilters')).toBe('created_at_i>1000,created_at_i<=1200');
    const second = hackerNews.parse(answer([1100], 1), '', now, first.cursor);
    expect(second.items.map((i) => i.key)).toEqual(['1100']);
    expect(second.cursor).toBe('1300');
    // An answer no older than the last (a full page of one second) steps past that second.
    const same = hackerNews.parse(answer([1200, 1200], 5), '', now, first.cursor);
    expect(JSON.parse(same.cursor!).until).toBe(1199);
    // A first poll's backlog is history: no reading back.
    expect(hackerNews.parse(answer([1300, 1200], 900), '', now, null).cursor).toBe('1300');
    expect(() => hackerNews.parse('<html>', '', now)).toThrow(/JSON/);
  });
});

describe('Reddit', () => {
  const post = (name: string, created: number, over: Record<string, unknown> = {}) => ({
    kind: 't3',
    data: {
      name,
      id: name.slice(3),
      title: 'Acme support is ignoring warranty claims',
      selftext: 'Five weeks and no answer from Acme &amp; no refund.',
      url: `https://www.reddit.com/r/ebikes/comments/${name.slice(3)}/x/`,
      permalink: `/r/ebikes/comments/${name.slice(3)}/x/`,
      author: 'rider',
      subreddit: 'ebikes',
      created_utc: created,
      score: 40,
      num_comments: 12,
      is_self: true,
      ...over,
    },
  });
  const listing = (children: unknown[]) =>
    JSON.stringify({ kind: 'Listing', data: { after: null, dist: children.length, children } });

  it('asks the search for the newest posts, reads text posts with their reach and link posts as their article', () => {
    const url = new URL(reddit.request(ask('https://www.reddit.com', null))[0]!);
    expect(url.pathname).toBe('/search.json');
    expect(url.searchParams.get('q')).toBe('"Acme" OR "Acme Corp" -"Acme Road"');
    expect(url.searchParams.get('sort')).toBe('new');
    const page = reddit.parse(
      listing([
        post('t3_b', 1795860000),
        post('t3_a', 1795856400, {
          is_self: false,
          selftext: '',
          url: 'https://planet.example/news/acme-recall',
        }),
      ]),
      '',
      now,
      null,
    );
    expect(page.cursor).toBe('1795860000');
    expect(page.items[0]).toEqual({
      key: 't3_b',
      url: 'https://www.reddit.com/r/ebikes/comments/b/x/',
      title: 'Acme support is ignoring warranty claims',
      published_at: '2026-11-28T10:00:00.000Z',
      given: {
        text: 'Acme support is ignoring warranty claims\n\nFive weeks and no answer from Acme & no refund.',
        publisher: 'Reddit (r/ebikes)',
        author: 'rider',
        type: 'forum',
        reach: 52,
      },
    });
    expect(page.items[1]).toEqual({
      key: 't3_a',
      url: 'https://planet.example/news/acme-recall',
      title: 'Acme support is ignoring warranty claims',
      published_at: '2026-11-28T09:00:00.000Z',
    });
    // The search cannot be asked "since": what the cursor has seen is dropped here.
    const later = reddit.parse(listing([post('t3_b', 1795860000)]), '', now, '1795860000');
    expect(later).toEqual({ items: [], cursor: '1795860000' });
    expect(() =>
      reddit.parse('{"message": "Too Many Requests", "error": 429}', '', now, null),
    ).toThrow(/format/);
  });

  it('reads a burst larger than one answer back through `after`, then moves on', () => {
    const full = (ids: number[], after: string | null) =>
      JSON.stringify({
        kind: 'Listing',
        data: { after, children: ids.map((t) => post(`t3_${t}`, t)) },
      });
    // Since 1000, a full answer of newer posts with more after it: the rest is read next.
    const first = reddit.parse(full([1300, 1200], 't3_1200'), '', now, '1000');
    expect(first.items.map((i) => i.key)).toEqual(['t3_1300', 't3_1200']);
    expect(JSON.parse(first.cursor!)).toEqual({
      since: 1000,
      until: 1200,
      next: 1300,
      after: 't3_1200',
    });
    expect(
      new URL(reddit.request(ask('https://www.reddit.com', first.cursor))[0]!).searchParams.get(
        'after',
      ),
    ).toBe('t3_1200');
    // The next answer reaches what was read before: the burst is read, the cursor moves on.
    const second = reddit.parse(full([1100, 900], 't3_900'), '', now, first.cursor);
    expect(second.items.map((i) => i.key)).toEqual(['t3_1100']);
    expect(second.cursor).toBe('1300');
    expect(
      new URL(reddit.request(ask('https://www.reddit.com', '1300'))[0]!).searchParams.has('after'),
    ).toBe(false);
  });
});

describe('Mastodon', () => {
  const status = (id: string, over: Record<string, unknown> = {}) => ({
    id,
    created_at: '2026-11-28T10:00:00.000Z',
    in_reply_to_id: null,
    sensitive: false,
    spoiler_text: '',
    visibility: 'public',
    language: 'en',
    uri: `https://social.example/users/ann/statuses/${id}`,
    url: `https://social.example/@ann/${id}`,
    replies_count: 1,
    reblogs_count: 2,
    favourites_count: 3,
    content:
      '<p>The new <a href="https://social.example/tags/acme" class="mention hashtag">#<span>Acme</span></a> store is open.<br />Queue around the block &amp; free coffee.</p>',
    account: {
      id: '1',
      username: 'ann',
      acct: 'ann@social.example',
      display_name: 'Ann',
      followers_count: 50,
    },
    media_attachments: [],
    ...over,
  });

  it('asks the hashtag’s public timeline since the newest status, and reads posts with their reach', () => {
    expect(hashtagOf('Acme Corp')).toBe('acmecorp');
    const first = mastodon.request(ask('https://mastodon.social', null))[0]!;
    expect(first).toBe('https://mastodon.social/api/v1/timelines/tag/acme?limit=40');
    const next = mastodon.request(ask('https://mastodon.social', '113000000000000009'))[0]!;
    expect(next).toBe(
      'https://mastodon.social/api/v1/timelines/tag/acme?limit=40&min_id=113000000000000009',
    );
    const page = mastodon.parse(
      JSON.stringify([
        status('113000000000000010'),
        status('113000000000000009', {
          account: { acct: 'big@news.example', followers_count: 250_000 },
          reblogs_count: 0,
          favourites_count: 0,
          replies_count: 0,
        }),
        status('99', { url: null }),
      ]),
      first,
      now,
    );
    // The cursor holds the newest status read on each instance.
    expect(JSON.parse(page.cursor!)).toEqual({ 'https://mastodon.social': '113000000000000010' });
    expect(page.items).toHaveLength(2);
    expect(page.items[0]).toEqual({
      key: 'https://social.example/users/ann/statuses/113000000000000010',
      url: 'https://social.example/@ann/113000000000000010',
      title: 'The new #Acme store is open.\nQueue around the block & free coffee.',
      published_at: '2026-11-28T10:00:00.000Z',
      given: {
        text: 'The new #Acme store is open.\nQueue around the block & free coffee.',
        publisher: 'Mastodon (social.example)',
        author: 'ann@social.example',
        type: 'social',
        reach: 6,
        // The hashtag is Mastodon's own link, not a page the post shares.
        links: [],
      },
    });
    // A widely followed account reaches people before anyone reacts.
    expect(page.items[1]!.given!.reach).toBe(2500);
    const sharing = mastodon.parse(
      JSON.stringify([
        status('113000000000000011', {
          content:
            '<p>Read this before charging tonight: <a href="https://planet.example/news/acme-recall?ref=a&amp;b=1" rel="nofollow noopener" target="_blank"><span class="invisible">https://</span>planet.example/news/acme-recall</a> <a href="https://social.example/@bob" class="u-url mention">@bob</a></p>',
        }),
      ]),
      '',
      now,
    );
    expect(sharing.items[0]!.given!.links).toEqual([
      'https://planet.example/news/acme-recall?ref=a&b=1',
    ]);
    expect(mastodon.parse('[]', first, now)).toEqual({ items: [], cursor: null });
    expect(() =>
      mastodon.parse('{"error":"This method requires an authenticated user"}', '', now),
    ).toThrow(/format/);
  });
});

describe('Mastodon, several instances', () => {
  const two = 'https://mastodon.social, https://fosstodon.org/';
  it('asks each instance from its own newest status, and keeps each one’s cursor', () => {
    expect(mastodon.request(ask(two, null))).toEqual([
      'https://mastodon.social/api/v1/timelines/tag/acme?limit=40',
      'https://fosstodon.org/api/v1/timelines/tag/acme?limit=40',
    ]);
    const cursor = JSON.stringify({
      'https://mastodon.social': '113000000000000010',
      'https://fosstodon.org': '112000000000000001',
    });
    expect(mastodon.request(ask(two, cursor))).toEqual([
      'https://mastodon.social/api/v1/timelines/tag/acme?limit=40&min_id=113000000000000010',
      'https://fosstodon.org/api/v1/timelines/tag/acme?limit=40&min_id=112000000000000001',
    ]);
    // A cursor from a release that read one instance counts for each: ids grow with time.
    expect(mastodon.request(ask(two, '113000000000000010'))[1]).toContain(
      'min_id=113000000000000010',
    );
    const read = mastodon.parse(
      '[]',
      'https://fosstodon.org/api/v1/timelines/tag/acme?limit=40',
      now,
      cursor,
    );
    expect(read.cursor).toBe(cursor);
  });
});

describe('YouTube channel feeds', () => {
  const channel = 'UCabcdefghijklmnopqrstuv';
  const feed = (entries: string) => `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns:yt="http://www.youtube.com/xml/schemas/2015" xmlns:media="http://search.yahoo.com/mrss/" xmlns="http://www.w3.org/2005/Atom">
 <link rel="self" href="http://www.youtube.com/feeds/videos.xml?channel_id=${channel}"/>
 <id>yt:channel:abcdefghijklmnopqrstuv</id>
 <yt:channelId>abcdefghijklmnopqrstuv</yt:channelId>
 <title>Bike Bench Tests</title>
 <author><name>Bike Bench Tests</name><uri>https://www.youtube.com/channel/${channel}</uri></author>
 <published>2019-03-01T10:00:00+00:00</published>
${entries}
</feed>`;
  const entry = (
    id: string,
    views: number,
    likes: number,
    title = 'Acme e-bike: 1,000 km later',
  ) => `
 <entry>
  <id>yt:video:${id}</id>
  <yt:videoId>${id}</yt:videoId>
  <yt:channelId>abcdefghijklmnopqrstuv</yt:channelId>
  <title>${title}</title>
  <link rel="alternate" href="https://www.youtube.com/watch?v=${id}"/>
  <author><name>Bike Bench Tests</name><uri>https://www.youtube.com/channel/${channel}</uri></author>
  <published>2026-11-28T16:00:00+00:00</published>
  <updated>2026-11-28T18:00:00+00:00</updated>
  <media:group>
   <media:title>${title}</media:title>
   <media:content url="https://www.youtube.com/v/${id}?version=3" type="application/x-shockwave-flash" width="640" height="390"/>
   <media:thumbnail url="https://i1.ytimg.com/vi/${id}/hqdefault.jpg" width="480" height="360"/>
   <media:description>We rode the Acme Corp commuter for a month &amp; the battery lost a third.</media:description>
   <media:community>
    <media:starRating count="${likes}" average="5.00" min="1" max="5"/>
    <media:statistics views="${views}"/>
   </media:community>
  </media:group>
 </entry>`;
  it('asks each channel’s feed, and reads each video as it is with its likes or views as reach', () => {
    expect(youtube.request(ask('https://www.youtube.com', null))).toEqual([]);
    expect(
      youtube.request(
        ask('https://www.youtube.com', null, { targets: [channel, 'UC0123456789012345678901'] }),
      ),
    ).toEqual([
      `https://www.youtube.com/feeds/videos.xml?channel_id=${channel}`,
      'https://www.youtube.com/feeds/videos.xml?channel_id=UC0123456789012345678901',
    ]);
    expect(youtube.targets!.pattern.test(channel)).toBe(true);
    expect(youtube.targets!.pattern.test('@bikebench')).toBe(false);
    const page = youtube.parse(
      feed(entry('vid00000001', 48_000, 120) + entry('vid00000002', 300, 2)),
      '',
      now,
    );
    expect(page.cursor).toBeNull();
    expect(page.items[0]).toEqual({
      key: 'yt:video:vid00000001',
      url: 'https://www.youtube.com/watch?v=vid00000001',
      title: 'Acme e-bike: 1,000 km later',
      published_at: '2026-11-28T16:00:00+00:00',
      given: {
        text: 'Acme e-bike: 1,000 km later\n\nWe rode the Acme Corp commuter for a month & the battery lost a third.',
        publisher: 'YouTube (Bike Bench Tests)',
        author: 'Bike Bench Tests',
        type: 'social',
        reach: 480,
      },
    });
    expect(page.items[1]!.given!.reach).toBe(3);
    // A new channel with no video yet; a feed that is not one; an entity bomb.
    expect(youtube.parse(feed(''), '', now).items).toEqual([]);
    expect(() => youtube.parse('<html><body>Not found</body></html>', '', now)).toThrow(/format/);
    expect(() =>
      youtube.parse('<!DOCTYPE feed [<!ENTITY a "aaaa">]><feed>&a;</feed>', '', now),
    ).toThrow(/entity/);
  });
});

describe('App Store reviews', () => {
  const url =
    'https://itunes.apple.com/gb/rss/customerreviews/page=1/id=1234567890/sortby=mostrecent/json';
  const review = (id: string, rating: string, votes = '0') => ({
    author: {
      uri: { label: `https://itunes.apple.com/gb/reviews/id${id}0` },
      name: { label: 'kettle_fan' },
      label: '',
    },
    updated: { label: '2026-11-28T03:14:00-07:00' },
    'im:rating': { label: rating },
    'im:version': { label: '4.2.1' },
    id: { label: id },
    title: { label: 'Lost all my settings' },
    content: {
      label: 'Since the update the app forgets my kettle every morning.',
      attributes: { type: 'text' },
    },
    link: {
      attributes: {
        rel: 'related',
        href: 'https://itunes.apple.com/gb/review?id=1234567890&type=Purple%20Software',
      },
    },
    'im:voteSum': { label: votes },
    'im:contentType': { attributes: { term: 'Application', label: 'Application' } },
    'im:voteCount': { label: votes },
  });
  const answer = (entry: unknown) =>
    JSON.stringify({
      feed: {
        author: {
          name: { label: 'iTunes Store' },
          uri: { label: 'http://www.apple.com/uk/itunes/' },
        },
        ...(entry !== undefined && { entry }),
        updated: { label: '2026-11-28T04:00:00-07:00' },
        rights: { label: 'Copyright 2008 Apple Inc.' },
        title: { label: 'iTunes Store: Customer Reviews' },
        icon: { label: 'http://itunes.apple.com/favicon.ico' },
        link: [
          {
            attributes: {
              rel: 'alternate',
              type: 'text/html',
              href: 'https://itunes.apple.com/gb/app/id1234567890',
            },
          },
        ],
        id: { label: url },
      },
    });
  it('asks each app’s feed in its store, and reads each review with its stars, about the brand', () => {
    expect(
      appStore.request(
        ask('https://itunes.apple.com', null, { targets: ['1234567890', 'gb:1234567890'] }),
      ),
    ).toEqual([
      'https://itunes.apple.com/us/rss/customerreviews/page=1/id=1234567890/sortby=mostrecent/json',
      url,
    ]);
    expect(appStore.targets!.pattern.test('gb:1234567890')).toBe(true);
    expect(appStore.targets!.pattern.test('https://apps.apple.com/app/id1')).toBe(false);
    const page = appStore.parse(
      answer([
        // An older feed's first entry: the app itself.
        {
          'im:name': { label: 'Acme Home' },
          id: { label: 'https://apps.apple.com/gb/app/id1234567890' },
        },
        review('11000000001', '1', '14'),
        review('11000000002', '5'),
      ]),
      url,
      now,
    );
    expect(page.items).toHaveLength(2);
    expect(page.items[0]).toEqual({
      key: 'app-store:11000000001',
      url: 'https://apps.apple.com/gb/app/id1234567890?see-all=reviews#review-11000000001',
      title: 'Lost all my settings',
      published_at: '2026-11-28T03:14:00-07:00',
      given: {
        text: '1 of 5 stars. Lost all my settings\n\nSince the update the app forgets my kettle every morning.',
        publisher: 'App Store (GB)',
        author: 'kettle_fan',
        type: 'review',
        reach: 14,
        about: true,
      },
    });
    // One review is an object, not a list; none is no `entry`.
    expect(appStore.parse(answer(review('11000000003', '2')), url, now).items).toHaveLength(1);
    expect(appStore.parse(answer(undefined), url, now).items).toEqual([]);
    expect(() => appStore.parse('{"feed": "gone"}', url, now)).toThrow(/format/);
  });
});

describe('X recent search', () => {
  it('asks with the bearer token for posts since the newest read, and reads them with reach and links', () => {
    const [first] = x.request(ask('https://api.x.com', null));
    const u = new URL(first!);
    expect(u.pathname).toBe('/2/tweets/search/recent');
    expect(u.searchParams.get('query')).toBe('("Acme" OR "Acme Corp" -"Acme Road") -is:retweet');
    expect(u.searchParams.get('since_id')).toBeNull();

    expect(x.authorize!('t0ken')).toEqual({ authorization: 'Bearer t0ken' });
    // A post id of a day ago is asked from; one of two weeks ago is past recent search's
    // seven days (a 400), so the window's start is asked from instead.
    const idAt = (ms: number) => String((BigInt(ms) - 1288834974657n) << 22n);
    const dayAgo = idAt(now.getTime() - 86_400_000);
    expect(
      new URL(x.request(ask('https://api.x.com', dayAgo))[0]!).searchParams.get('since_id'),
    ).toBe(dayAgo);
    const stale = new URL(
      x.request(ask('https://api.x.com', idAt(now.getTime() - 14 * 86_400_000)))[0]!,
    );
    expect(stale.searchParams.has('since_id')).toBe(false);
    expect(Date.parse(stale.searchParams.get('start_time')!)).toBeGreaterThan(
      now.getTime() - 7 * 86_400_000,
    );
    const page = x.parse(
      JSON.stringify({
        data: [
          {
            id: '1862000000000000003',
            text: 'Acme recall: check your charger https://t.co/abc',
            author_id: '42',
            created_at: '2026-11-28T09:00:00.000Z',
            lang: 'en',
            edit_history_tweet_ids: ['1862000000000000003'],
            public_metrics: {
              retweet_count: 3,
              reply_count: 2,
              like_count: 9,
              quote_count: 1,
              bookmark_count: 0,
              impression_count: 900,
            },
            entities: {
              urls: [
                {
                  start: 32,
                  end: 55,
                  url: 'https://t.co/abc',
                  expanded_url: 'https://planet.example/acme-recall',
                  display_url: 'planet.example/acme-recall',
                },
              ],
            },
          },
          {
            id: '1862000000000000002',
            text: 'Acme again',
            author_id: '43',
            created_at: '2026-11-28T08:00:00.000Z',
            public_metrics: { retweet_count: 0, reply_count: 0, like_count: 0, quote_count: 0 },
          },
        ],
        includes: {
          users: [
            { id: '42', name: 'Ann', username: 'ann', public_metrics: { followers_count: 80 } },
            {
              id: '43',
              name: 'News',
              username: 'bignews',
              public_metrics: { followers_count: 2_000_000 },
            },
          ],
        },
        meta: {
          newest_id: '1862000000000000003',
          oldest_id: '1862000000000000002',
          result_count: 2,
        },
      }),
      first!,
      now,
      '1862000000000000001',
    );
    expect(page.cursor).toBe('1862000000000000003');
    expect(page.items[0]).toMatchObject({
      key: 'x:1862000000000000003',
      url: 'https://x.com/ann/status/1862000000000000003',
      given: {
        author: '@ann',
        publisher: 'X',
        type: 'social',
        reach: 15,
        links: ['https://planet.example/acme-recall'],
      },
    });
    expect(page.items[1]!.given!.reach).toBe(20_000);
    // No results: no data, and the cursor stays.
    expect(x.parse(JSON.stringify({ meta: { result_count: 0 } }), first!, now, '7')).toEqual({
      items: [],
      cursor: '7',
    });
    expect(() => x.parse('{"data": "none"}', first!, now)).toThrow(/format/);
  });
});

describe('YouTube search (Data API)', () => {
  it('asks with the key in a header for videos since the newest read, and reads them as news', () => {
    const [first] = youtubeSearch.request(ask('https://www.googleapis.com', null));
    const u = new URL(first!);
    expect(u.searchParams.get('q')).toBe('"Acme"|"Acme Corp" -"Acme Road"');
    expect(u.searchParams.get('key')).toBeNull();
    expect(youtubeSearch.authorize!('k')).toEqual({ 'x-goog-api-key': 'k' });
    expect(youtubeSearch.perMinute).toBeLessThan(1);
    const page = youtubeSearch.parse(
      JSON.stringify({
        kind: 'youtube#searchListResponse',
        etag: 'e',
        nextPageToken: 'CDIQAA',
        regionCode: 'GB',
        pageInfo: { totalResults: 2, resultsPerPage: 50 },
        items: [
          {
            kind: 'youtube#searchResult',
            etag: 'e1',
            id: { kind: 'youtube#video', videoId: 'vid00000009' },
            snippet: {
              publishedAt: '2026-11-28T12:00:00Z',
              channelId: 'UC0123456789012345678901',
              title: 'Acme&#39;s recall, explained',
              description: 'What owners should do.',
              thumbnails: {},
              channelTitle: 'Planet &amp; Co',
              liveBroadcastContent: 'none',
              publishTime: '2026-11-28T12:00:00Z',
            },
          },
          {
            kind: 'youtube#searchResult',
            etag: 'e2',
            id: { kind: 'youtube#channel', channelId: 'UC1' },
            snippet: { publishedAt: '2026-11-28T11:00:00Z', title: 'Acme', channelTitle: 'Acme' },
          },
        ],
      }),
      first!,
      now,
    );
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({
      url: 'https://www.youtube.com/watch?v=vid00000009',
      title: "Acme's recall, explained",
      given: { publisher: 'YouTube (Planet & Co)', reach: null, type: 'social' },
    });
    expect(page.cursor).toBe('2026-11-28T12:00:01.000Z');
    expect(() => youtubeSearch.parse('{"error": {"code": 403}}', first!, now)).toThrow(/format/);
  });
});

describe('Trustpilot', () => {
  it('asks each business unit’s newest reviews with the key in a header, and reads them about the brand', () => {
    const unit = '5f0e1d2c3b4a596877665544';
    expect(
      trustpilot.request(ask('https://api.trustpilot.com', null, { targets: [unit] })),
    ).toEqual([
      `https://api.trustpilot.com/v1/business-units/${unit}/reviews?orderBy=createdat.desc&perPage=100`,
    ]);
    expect(trustpilot.authorize!('k')).toEqual({ apikey: 'k' });
    expect(trustpilot.targets!.pattern.test('acme.com')).toBe(false);
    const page = trustpilot.parse(
      JSON.stringify({
        links: [],
        reviews: [
          {
            links: [],
            id: '6743a1b2c3d4e5f6a7b8c9d0',
            consumer: { links: [], id: 'c1', displayName: 'R. Patel', numberOfReviews: 3 },
            businessUnit: { id: unit, displayName: 'Acme', identifyingName: 'acme.com' },
            stars: 1,
            title: 'Refund never came',
            text: 'Waited six weeks for a refund on a returned kettle.',
            language: 'en',
            createdAt: '2026-11-27T20:00:00Z',
            numberOfLikes: 11,
          },
          { id: 'x2', stars: 5, title: null, text: '', createdAt: '2026-11-27T19:00:00Z' },
        ],
      }),
      '',
      now,
    );
    expect(page.items).toEqual([
      {
        key: 'trustpilot:6743a1b2c3d4e5f6a7b8c9d0',
        url: 'https://www.trustpilot.com/reviews/6743a1b2c3d4e5f6a7b8c9d0',
        title: 'Refund never came',
        published_at: '2026-11-27T20:00:00Z',
        given: {
          text: '1 of 5 stars. Refund never came\n\nWaited six weeks for a refund on a returned kettle.',
          publisher: 'Trustpilot',
          author: 'R. Patel',
          type: 'review',
          reach: 11,
          about: true,
        },
      },
    ]);
    expect(() => trustpilot.parse('{"message": "Unauthorized"}', '', now)).toThrow(/format/);
  });
});

describe('Retry-After', () => {
  it('is read in seconds or as a date, a minute when absent, an hour at most', () => {
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs(new Date(now.getTime() + 30_000).toUTCString(), now)).toBe(30_000);
    expect(retryAfterMs(null, now)).toBe(60_000);
    expect(retryAfterMs('soon', now)).toBe(60_000);
    expect(retryAfterMs('86400', now)).toBe(3_600_000);
  });
});
