import { describe, expect, it } from 'vitest';
import { bingNews } from '../../src/connectors/bing-news.js';
import { brandQuery, orQuery } from '../../src/connectors/connector.js';
import { gdelt } from '../../src/connectors/gdelt.js';
import { googleNews } from '../../src/connectors/google-news.js';
import { hackerNews } from '../../src/connectors/hacker-news.js';
import { hashtagOf, mastodon } from '../../src/connectors/mastodon.js';
import { reddit } from '../../src/connectors/reddit.js';
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

const rss = (items: string) => `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>"Acme" - Google News</title><link>https://news.google.com</link>
${items}
</channel></rss>`;

describe('Google News', () => {
  it('asks the RSS search with the query, and reads each item as its headline and publisher', () => {
    const url = googleNews.request('https://news.google.com', acme, null, now);
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
    const url = bingNews.request('https://www.bing.com', acme, null, now);
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
    const first = new URL(gdelt.request('https://api.gdeltproject.org', acme, null, now));
    expect(first.pathname).toBe('/api/v2/doc/doc');
    expect(first.searchParams.get('query')).toBe('("Acme" OR "Acme Corp") -"Acme Road"');
    expect(first.searchParams.get('mode')).toBe('ArtList');
    expect(first.searchParams.get('format')).toBe('json');
    expect(first.searchParams.get('timespan')).toBe('1d');
    const next = new URL(
      gdelt.request('https://api.gdeltproject.org', acme, '20261128090001', now),
    );
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
    const url = new URL(hackerNews.request('https://hn.algolia.com', acme, '1795852800', now));
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
    const url = new URL(reddit.request('https://www.reddit.com', acme, null, now));
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
    const first = mastodon.request('https://mastodon.social', acme, null, now);
    expect(first).toBe('https://mastodon.social/api/v1/timelines/tag/acme?limit=40');
    const next = mastodon.request('https://mastodon.social', acme, '113000000000000009', now);
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
      '',
      now,
    );
    expect(page.cursor).toBe('113000000000000010');
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
    expect(mastodon.parse('[]', '', now)).toEqual({ items: [], cursor: null });
    expect(() =>
      mastodon.parse('{"error":"This method requires an authenticated user"}', '', now),
    ).toThrow(/format/);
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
