import { describe, expect, it } from 'vitest';
import { parseFeed } from '../../src/pipeline/feed.js';

const BASE = 'https://news.example.org/feeds/main.xml';
/** When the feed was fetched (dates more than a day after it are refused). */
const FETCHED = new Date('2026-11-23T12:00:00Z');

describe('feed parsing', () => {
  it('reads RSS 2.0: guid, relative links, dates, entities and CDATA', () => {
    const xml = `<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>
      <item><title>A &amp; B</title><link>/a</link><guid isPermaLink="false">g1</guid>
        <pubDate>Tue, 10 Nov 2026 23:30:00 -0200</pubDate></item>
      <item><title><![CDATA[C <b>bold</b>]]></title><link>https://x.example/c</link></item>
      <item><title>no link</title></item>
      <item><title>script</title><link>javascript:alert(1)</link></item>
    </channel></rss>`;
    expect(parseFeed(xml, BASE, FETCHED)).toEqual([
      { key: 'g1', url: 'https://news.example.org/a', title: 'A & B', published_at: '2026-11-11' },
      { key: 'https://x.example/c', url: 'https://x.example/c', title: 'C <b>bold</b>' },
    ]);
  });

  it('reads Atom: the alternate link, id, published or updated', () => {
    const xml = `<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title>
      <entry><id>urn:uuid:1</id><title type="html">One</title>
        <link rel="self" href="/self/1"/><link rel="alternate" href="/posts/1"/>
        <updated>2026-11-12T10:00:00Z</updated></entry>
      <entry><id>urn:uuid:2</id><title>Two</title><link href="https://y.example/2"/>
        <published>2026-11-13T10:00:00Z</published><updated>2026-11-14T10:00:00Z</updated></entry>
    </feed>`;
    expect(parseFeed(xml, BASE, FETCHED)).toEqual([
      {
        key: 'urn:uuid:1',
        url: 'https://news.example.org/posts/1',
        title: 'One',
        published_at: '2026-11-12',
      },
      { key: 'urn:uuid:2', url: 'https://y.example/2', title: 'Two', published_at: '2026-11-13' },
    ]);
  });

  it('reads RSS 1.0 (RDF) with Dublin Core dates', () => {
    const xml = `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
      xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
      <channel rdf:about="${BASE}"><title>T</title></channel>
      <item rdf:about="https://z.example/r1"><title>R</title><link>https://z.example/r1</link>
        <dc:date>2026-11-13</dc:date></item></rdf:RDF>`;
    expect(parseFeed(xml, BASE, FETCHED)).toEqual([
      {
        key: 'https://z.example/r1',
        url: 'https://z.example/r1',
        title: 'R',
        published_at: '2026-11-13',
      },
    ]);
  });

  it('refuses feeds that declare entities (no expansion bombs)', () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>
      <rss version="2.0"><channel><item><title>&b;</title><link>https://x.example/1</link></item></channel></rss>`;
    expect(() => parseFeed(bomb, BASE, FETCHED)).toThrow(/entity declarations are refused/);
  });

  it('decodes numeric references in titles', () => {
    const xml = `<rss version="2.0"><channel><item><title>Acme&#8217;s recall</title><link>https://x.example/1</link></item></channel></rss>`;
    expect(parseFeed(xml, BASE, FETCHED)[0]!.title).toBe('Acme’s recall');
  });

  it('refuses what is not a feed', () => {
    expect(() => parseFeed('<html><body>hello</body></html>', BASE, FETCHED)).toThrow(/not a feed/);
    expect(() => parseFeed('{"items": []}', BASE, FETCHED)).toThrow(/not a feed/);
  });

  it('reads a news sitemap as a feed, and refuses a plain sitemap', () => {
    const news = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
 <url>
  <loc>https://news.example.org/business/acme-recall</loc>
  <news:news>
   <news:publication><news:name>Example News</news:name><news:language>en</news:language></news:publication>
   <news:publication_date>2026-11-23T08:30:00+00:00</news:publication_date>
   <news:title>Acme recalls 40,000 kettles</news:title>
  </news:news>
  <image:image><image:loc>https://news.example.org/i/1.jpg</image:loc></image:image>
 </url>
 <url>
  <loc>/business/acme-results</loc>
  <news:news>
   <news:publication><news:name>Example News</news:name><news:language>en</news:language></news:publication>
   <news:publication_date>2026-11-22</news:publication_date>
   <news:title>Acme&#8217;s results beat forecasts</news:title>
  </news:news>
 </url>
</urlset>`;
    expect(parseFeed(news, BASE, FETCHED)).toEqual([
      {
        key: 'https://news.example.org/business/acme-recall',
        url: 'https://news.example.org/business/acme-recall',
        title: 'Acme recalls 40,000 kettles',
        published_at: '2026-11-23',
      },
      {
        key: '/business/acme-results',
        url: 'https://news.example.org/business/acme-results',
        title: 'Acme’s results beat forecasts',
        published_at: '2026-11-22',
      },
    ]);
    const plain = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://news.example.org/about</loc><lastmod>2026-01-01</lastmod></url></urlset>`;
    expect(() => parseFeed(plain, BASE, FETCHED)).toThrow(/without news entries/);
    const index = `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://news.example.org/news.xml</loc></sitemap></sitemapindex>`;
    expect(() => parseFeed(index, BASE, FETCHED)).toThrow(/not a feed/);
  });

  it('dates items in the forms feeds write, and leaves out what it cannot date right', () => {
    const xml = `<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel>
      <item><title>cet</title><link>https://x.example/1</link><pubDate>Wed, 11 Nov 2026 00:30:00 CET</pubDate></item>
      <item><title>mesz</title><link>https://x.example/2</link><pubDate>Mi, 11 Nov 26 01:30 MESZ</pubDate></item>
      <item><title>epoch</title><link>https://x.example/3</link><pubDate>Thu, 01 Jan 1970 00:00:00 +0000</pubDate></item>
      <item><title>future</title><link>https://x.example/4</link><pubDate>Wed, 25 Nov 2026 08:00:00 GMT</pubDate></item>
      <item><title>junk</title><link>https://x.example/5</link><pubDate>1</pubDate></item>
      <item><title>fallback</title><link>https://x.example/6</link><pubDate>soon</pubDate>
        <dc:date>2026-11-09T23:30:00-02:00</dc:date></item>
    </channel></rss>`;
    const dates = (at: Date) => parseFeed(xml, BASE, at).map((i) => [i.title, i.published_at]);
    expect(dates(FETCHED)).toEqual([
      ['cet', '2026-11-10'],
      ['mesz', '2026-11-10'],
      ['epoch', undefined],
      ['future', undefined],
      ['junk', undefined],
      ['fallback', '2026-11-10'],
    ]);
    // The future is judged by the fetch time passed in.
    expect(dates(new Date('2026-11-25T00:00:00Z'))[3]).toEqual(['future', '2026-11-25']);

    const atom = `<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>a</id><title>A</title>
      <link href="https://x.example/a"/><published>0001-01-01T00:00:00Z</published>
      <updated>2026-11-12T10:00:00+01:00</updated></entry></feed>`;
    expect(parseFeed(atom, BASE, FETCHED)[0]!.published_at).toBe('2026-11-12');
  });

  it('takes a permalink guid as the link when there is no <link>', () => {
    const xml = `<rss version="2.0"><channel>
      <item><title>p1</title><guid isPermaLink="true">https://x.example/p1</guid></item>
      <item><title>p2</title><guid>https://x.example/p2</guid></item>
      <item><title>p3</title><guid isPermaLink="false">https://x.example/p3</guid></item>
      <item><title>p4</title><guid>tag:x.example,2026:p4</guid></item>
      <item><title>p5</title><link>https://x.example/p5</link><guid>https://x.example/p5?guid</guid></item>
    </channel></rss>`;
    expect(parseFeed(xml, BASE, FETCHED)).toEqual([
      { key: 'https://x.example/p1', url: 'https://x.example/p1', title: 'p1' },
      { key: 'https://x.example/p2', url: 'https://x.example/p2', title: 'p2' },
      { key: 'https://x.example/p5?guid', url: 'https://x.example/p5', title: 'p5' },
    ]);
  });

  it('keeps atom:link apart from RSS <link>, by namespace, not by prefix', () => {
    const xml = `<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"
        xmlns:atom10="http://www.w3.org/2005/Atom" xmlns:foo="urn:example:foo"><channel>
      <atom:link rel="self" href="${BASE}"/>
      <item><title>a</title><atom:link rel="self" href="https://x.example/self/a"/><link>https://x.example/a</link></item>
      <item><title>b</title><link>https://x.example/b</link><atom:link rel="alternate" href="https://x.example/other/b"/></item>
      <item><title>c</title><atom10:link rel="alternate" href="/c"/></item>
      <item><title>d</title><atom:link href="https://x.example/d"/></item>
      <item><title>e</title><atom:link rel="enclosure" href="https://x.example/e.mp3"/></item>
      <item><title>f</title><foo:link>https://x.example/not-f</foo:link><link>https://x.example/f</link></item>
    </channel></rss>`;
    expect(parseFeed(xml, BASE, FETCHED).map((i) => [i.title, i.url])).toEqual([
      ['a', 'https://x.example/a'],
      ['b', 'https://x.example/b'],
      ['c', 'https://news.example.org/c'],
      ['d', 'https://x.example/d'],
      ['f', 'https://x.example/f'],
    ]);
  });

  it("prefers an Atom entry's alternate (HTML) link to self, enclosure, replies and edit", () => {
    const xml = `<feed xmlns="http://www.w3.org/2005/Atom" xmlns:x="urn:example:x">
      <entry><id>1</id><title>1</title><link rel="self" href="/self/1"/><link rel="enclosure" href="/1.mp3"/>
        <link rel="replies" type="text/html" href="/1#comments"/>
        <link rel="alternate" type="application/atom+xml" href="/1.atom"/>
        <link rel="alternate" type="text/html" href="/1.html"/></entry>
      <entry><id>2</id><title>2</title><link rel="edit" href="/edit/2"/>
        <link rel="http://www.iana.org/assignments/relation/alternate" href="/2"/></entry>
      <entry><id>3</id><title>3</title><link rel="self" href="/self/3"/></entry>
      <entry><id>4</id><title>4</title><x:link href="/not-4"/><link rel="replies" href="/4#c"/><link href="/4"/></entry>
    </feed>`;
    expect(parseFeed(xml, BASE, FETCHED).map((i) => [i.key, i.url])).toEqual([
      ['1', 'https://news.example.org/1.html'],
      ['2', 'https://news.example.org/2'],
      ['4', 'https://news.example.org/4'],
    ]);
  });

  it('resolves links against xml:base (feed, entry, link), then the feed URL', () => {
    const atom = `<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://blog.example.com/en/">
      <entry xml:base="2026/"><id>b1</id><title>b1</title><link href="post-1"/></entry>
      <entry><id>b2</id><title>b2</title><link xml:base="https://cdn.example.net/x/" href="post-2"/></entry>
      <entry><id>b3</id><title>b3</title><link href="/post-3"/></entry>
      <entry xml:base="javascript:alert(1)//"><id>b4</id><title>b4</title><link href="post-4"/></entry>
    </feed>`;
    expect(parseFeed(atom, BASE, FETCHED).map((i) => i.url)).toEqual([
      'https://blog.example.com/en/2026/post-1',
      'https://cdn.example.net/x/post-2',
      'https://blog.example.com/post-3',
      'https://blog.example.com/en/post-4',
    ]);
    const rss = `<rss version="2.0"><channel xml:base="/blog/">
      <item><title>r1</title><link>r1.html</link></item>
      <item xml:base="https://other.example/news/"><title>r2</title><link>r2.html</link></item>
    </channel></rss>`;
    expect(parseFeed(rss, BASE, FETCHED)).toEqual([
      { key: 'r1.html', url: 'https://news.example.org/blog/r1.html', title: 'r1' },
      { key: 'r2.html', url: 'https://other.example/news/r2.html', title: 'r2' },
    ]);
  });

  it('merges title and dc:title: title wins, dc:title when title is missing or empty', () => {
    const xml = `<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"
        xmlns:media="http://search.yahoo.com/mrss/"><channel>
      <item><title>Own</title><dc:title>DC</dc:title><link>https://x.example/1</link></item>
      <item><title> </title><dc:title>DC only</dc:title><link>https://x.example/2</link></item>
      <item><dc:title>DC alone</dc:title><link>https://x.example/3</link></item>
      <item><title>T</title><media:title>M</media:title><link>https://x.example/4</link></item>
    </channel></rss>`;
    expect(parseFeed(xml, BASE, FETCHED).map((i) => i.title)).toEqual([
      'Own',
      'DC only',
      'DC alone',
      'T',
    ]);
    const atom = `<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>x</id>
      <title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">Acme <b>recall</b></div></title>
      <link href="https://x.example/x"/></entry></feed>`;
    expect(parseFeed(atom, BASE, FETCHED)[0]!.title).toBe('Acme recall');
  });

  it('finds items beside the channel, and keeps guids as written', () => {
    const xml = `<rss version="0.91"><channel><title>T</title>
      <item><title>in</title><link>https://x.example/in</link><guid isPermaLink="false">0042</guid></item>
      </channel>
      <item><title>beside</title><link>https://x.example/beside</link></item></rss>`;
    expect(parseFeed(xml, BASE, FETCHED)).toEqual([
      { key: '0042', url: 'https://x.example/in', title: 'in' },
      { key: 'https://x.example/beside', url: 'https://x.example/beside', title: 'beside' },
    ]);
  });
});
