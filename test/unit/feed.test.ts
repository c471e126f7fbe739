import { describe, expect, it } from 'vitest';
import { parseFeed } from '../../src/pipeline/feed.js';

const BASE = 'https://news.example.org/feeds/main.xml';

describe('feed parsing', () => {
  it('reads RSS 2.0: guid, relative links, dates, entities and CDATA', () => {
    const xml = `<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>
      <item><title>A &amp; B</title><link>/a</link><guid isPermaLink="false">g1</guid>
        <pubDate>Tue, 10 Nov 2026 23:30:00 -0200</pubDate></item>
      <item><title><![CDATA[C <b>bold</b>]]></title><link>https://x.example/c</link></item>
      <item><title>no link</title></item>
      <item><title>script</title><link>javascript:alert(1)</link></item>
    </channel></rss>`;
    expect(parseFeed(xml, BASE)).toEqual([
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
    expect(parseFeed(xml, BASE)).toEqual([
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
    expect(parseFeed(xml, BASE)).toEqual([
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
    expect(() => parseFeed(bomb, BASE)).toThrow(/entity declarations are refused/);
  });

  it('decodes numeric references in titles', () => {
    const xml = `<rss version="2.0"><channel><item><title>Acme&#8217;s recall</title><link>https://x.example/1</link></item></channel></rss>`;
    expect(parseFeed(xml, BASE)[0]!.title).toBe('Acme’s recall');
  });

  it('refuses what is not a feed', () => {
    expect(() => parseFeed('<html><body>hello</body></html>', BASE)).toThrow(/not a feed/);
    expect(() => parseFeed('{"items": []}', BASE)).toThrow(/not a feed/);
  });
});
