import { describe, expect, it } from 'vitest';
import { isoDate } from '../../src/pipeline/article-date.js';
import { cleanText } from '../../src/pipeline/article-text.js';
import { extractArticle } from '../../src/pipeline/extract.js';

const paragraph = (n: number) =>
  `<p>Paragraph ${n}: Acme Corp confirmed on Monday that the recall of its toaster line covers every unit sold since March, after regulators reported overheating in several markets. The company said customers will be refunded in full.</p>`;

const page = (head: string, body: string) =>
  `<!doctype html><html lang="en"><head>${head}</head><body><nav><a href="/">Home</a> <a href="/world">World</a></nav><article>${body}</article><footer>© Daily Planet</footer></body></html>`;

describe('extractArticle', () => {
  it('reads title, publisher, author, date, canonical URL and the text, without the page around it', () => {
    const html = page(
      `<title>Acme recalls toasters | Daily Planet</title>
<meta property="og:site_name" content="Daily Planet">
<meta property="article:published_time" content="2026-11-20T08:30:00Z">
<link rel="canonical" href="/2026/11/acme-recall">`,
      `<h1>Acme recalls toasters</h1><p class="byline">By Lois Lane</p>${[1, 2, 3, 4].map(paragraph).join('')}<script>alert(1)</script>`,
    );
    const a = extractArticle(html, 'https://planet.example/amp/acme?utm_source=x')!;
    expect(a.publisher).toBe('Daily Planet');
    expect(a.published_at).toBe('2026-11-20T08:30:00.000Z');
    expect(a.canonical_url).toBe('https://planet.example/2026/11/acme-recall');
    expect(a.title).toContain('Acme recalls toasters');
    expect(a.text).toContain('Paragraph 4');
    expect(a.text).not.toContain('alert(1)');
    expect(a.text).not.toContain('<');
    expect(a.lang).toBe('en');
  });

  it('takes the date from JSON-LD, and refuses a javascript: canonical', () => {
    const html = page(
      `<title>Acme</title><link rel="canonical" href="javascript:alert(1)">
<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2026-10-01T12:00:00+02:00"}</script>`,
      [1, 2, 3].map(paragraph).join(''),
    );
    const a = extractArticle(html, 'https://news.example/a')!;
    expect(a.canonical_url).toBe('https://news.example/a');
    expect(a.published_at).toBe('2026-10-01T10:00:00.000Z');
  });

  it('reads a page’s own word that it is opinion: article:opinion, an Opinion section, an OpinionNewsArticle', () => {
    const body = [1, 2, 3].map(paragraph).join('');
    const opinion = (head: string) =>
      extractArticle(page(head, body), 'https://news.example/a')!.opinion;
    expect(opinion('<meta property="article:opinion" content="true">')).toBe(true);
    expect(opinion('<meta property="article:section" content="Opinion">')).toBe(true);
    expect(
      opinion('<script type="application/ld+json">{"@type":"OpinionNewsArticle"}</script>'),
    ).toBe(true);
    expect(opinion('<meta property="article:opinion" content="false">')).toBe(false);
    expect(opinion('<meta property="article:section" content="Business">')).toBe(false);
  });

  it('answers null for a page without an article', () => {
    expect(extractArticle('<html><body><p>Hi</p></body></html>', 'https://x.example/')).toBeNull();
  });
});

/** The clock of the tests below: dates more than a day after it are refused. */
const NOW = new Date('2026-11-23T12:00:00Z');
const body4 = [1, 2, 3, 4].map(paragraph).join('');
const ld = (data: unknown) => `<script type="application/ld+json">${JSON.stringify(data)}</script>`;
/** A page with a sidebar of other stories, each with its own <time>, before the article. */
const withSidebar = (head: string, article: string) =>
  `<!doctype html><html lang="en"><head>${head}</head><body>
<aside class="sidebar"><h2>Most read</h2><ul><li><a href="/x">Globex shares fall</a> <time datetime="2026-11-02T09:00:00Z">2 Nov</time></li></ul></aside>
<article>${article}</article><footer>© Daily Planet</footer></body></html>`;
const dateOf = (html: string) =>
  extractArticle(html, 'https://planet.example/a', NOW)?.published_at;

describe('the publication date', () => {
  it('is JSON-LD datePublished, in a @graph inside an array or nested in a WebPage, before any <time>', () => {
    const graph = ld([
      {
        '@context': 'https://schema.org',
        '@graph': [
          { '@type': 'WebSite', name: 'Daily Planet' },
          { '@type': ['NewsArticle'], datePublished: '2026-11-20T08:30:00Z' },
        ],
      },
    ]);
    expect(dateOf(withSidebar(graph, `<h1>Acme recalls toasters</h1>${body4}`))).toBe(
      '2026-11-20T08:30:00.000Z',
    );
    const nested = ld({
      '@context': 'https://schema.org',
      '@type': 'WebPage',
      mainEntity: { '@type': 'BlogPosting', datePublished: '2026-11-19T10:00:00+01:00' },
    });
    expect(dateOf(withSidebar(nested, `<h1>Acme recalls toasters</h1>${body4}`))).toBe(
      '2026-11-19T09:00:00.000Z',
    );
  });

  it('is read from the publication metas, in order, before any <time>', () => {
    for (const [attr, name] of [
      ['property', 'og:published_time'],
      ['name', 'pubdate'],
      ['name', 'date'],
      ['name', 'DC.date.issued'],
      ['name', 'parsely-pub-date'],
    ]) {
      const head = `<meta ${attr}="${name}" content="2026-11-20T08:30:00Z">`;
      const article = `<header><h1>Acme recalls toasters</h1><p>By Lois Lane · <time datetime="2026-11-21T07:00:00Z">21 Nov</time></p></header>${body4}`;
      expect(dateOf(withSidebar(head, article)), name).toBe('2026-11-20T08:30:00.000Z');
    }
    const both = `<meta name="date" content="2026-11-19"><meta property="article:published_time" content="2026-11-20T08:30:00Z">`;
    expect(dateOf(withSidebar(both, body4))).toBe('2026-11-20T08:30:00.000Z');
  });

  it('is never a modified date', () => {
    const head = `<meta property="article:modified_time" content="2026-11-22T10:00:00Z">
<meta property="og:updated_time" content="2026-11-22T10:00:00Z">
${ld({ '@context': 'https://schema.org', '@type': 'NewsArticle', dateModified: '2026-11-22T10:00:00Z' })}`;
    const updatedOnly = `<header><h1>Acme recalls toasters</h1><p>Updated <time itemprop="dateModified" datetime="2026-11-22T10:00:00Z">22 Nov</time></p></header>${body4}`;
    expect(dateOf(page(head, updatedOnly))).toBeNull();
    const both = `<header><h1>Acme recalls toasters</h1><p>Updated <time itemprop="dateModified" datetime="2026-11-22T10:00:00Z">22 Nov</time>, first published <time itemprop="datePublished" datetime="2026-11-20T08:30:00Z">20 Nov</time></p></header>${body4}`;
    expect(dateOf(page(head, both))).toBe('2026-11-20T08:30:00.000Z');
    const wordpress = `<header class="entry-header"><h1>Acme recalls toasters</h1><time class="updated" datetime="2026-11-22T10:00:00Z">22 Nov</time> <time class="entry-date published" datetime="2026-11-20T08:30:00Z">20 Nov</time></header>${body4}`;
    expect(dateOf(page('', wordpress))).toBe('2026-11-20T08:30:00.000Z');
  });

  it('is a <time> only when marked as the publication', () => {
    // A sidebar's time and a time in the text say nothing of when the article came out.
    const unmarked = `<h1>Acme recalls toasters</h1><p>Some text first.</p>${body4}<p>The hearing is on <time datetime="2026-12-01">1 December</time>.</p>`;
    expect(dateOf(withSidebar('', unmarked))).toBeNull();
    const related = `<h1>Acme recalls toasters</h1>${body4}<div class="related-stories"><a href="/y">Acme’s new toaster</a> <time itemprop="datePublished" datetime="2026-10-01">1 Oct</time></div>`;
    expect(dateOf(withSidebar('', related))).toBeNull();
    const pubdate = `<h1>Acme recalls toasters</h1>${body4}<p>Filed <time pubdate datetime="2026-11-20T08:30:00Z">20 Nov</time></p>`;
    expect(dateOf(withSidebar('', pubdate))).toBe('2026-11-20T08:30:00.000Z');
    const header = `<header><h1>Acme recalls toasters</h1><p>By Lois Lane · <time datetime="2026-11-20T08:30:00Z">20 Nov</time></p></header>${body4}`;
    expect(dateOf(withSidebar('', header))).toBe('2026-11-20T08:30:00.000Z');
    const lineAfterHeadline = `<h1>Acme recalls toasters</h1><p>Lois Lane · <time>November 20, 2026</time></p>${body4}`;
    expect(dateOf(withSidebar('', lineAfterHeadline))).toBe('2026-11-20T00:00:00.000Z');
  });

  it('is null when out of range or unreadable, never a guess', () => {
    for (const stated of [
      '1970-01-01T00:00:00Z', // an empty timestamp
      '0001-01-01',
      '2026-02-30', // Date.parse: 2 March
      'Monday 3', // Date.parse: 1 March 2001
      '3',
      '2026-11-26T00:00:00Z', // three days after NOW
      '2999-01-01',
    ]) {
      const head = `<meta property="article:published_time" content="${stated}">${ld({ '@type': 'NewsArticle', datePublished: stated })}`;
      expect(
        dateOf(withSidebar(head, `<h1>Acme recalls toasters</h1>${body4}`)),
        stated,
      ).toBeNull();
    }
  });

  it('reads the forms pages use, exactly', () => {
    const at = (s: string) => isoDate(s, NOW);
    expect(at('2026-11-20')).toBe('2026-11-20T00:00:00.000Z');
    expect(at('2026-11-20T08:30')).toBe('2026-11-20T08:30:00.000Z'); // no zone: UTC
    expect(at('2026-11-20 08:30:00.123-0500')).toBe('2026-11-20T13:30:00.123Z');
    expect(at('Fri, 20 Nov 2026 08:30:00 GMT')).toBe('2026-11-20T08:30:00.000Z');
    expect(at('Fri, 20 Nov 2026 08:30:00 +0100')).toBe('2026-11-20T07:30:00.000Z');
    expect(at('20 November 2026')).toBe('2026-11-20T00:00:00.000Z');
    expect(at('20. November 2026')).toBe('2026-11-20T00:00:00.000Z');
    expect(at('Friday, November 20, 2026')).toBe('2026-11-20T00:00:00.000Z');
    expect(at('2026/11/20')).toBe('2026-11-20T00:00:00.000Z');
    // The feeds' grammar: zone names and month names beyond English.
    expect(at('Fri, 20 Nov 2026 08:30:00 MESZ')).toBe('2026-11-20T06:30:00.000Z');
    expect(at('20 novembre 2026')).toBe('2026-11-20T00:00:00.000Z');
    expect(at('2024-02-29')).toBe('2024-02-29T00:00:00.000Z');
    for (const bad of [
      '2025-02-29',
      '2026-13-01',
      '2026-11-20T25:00',
      '20 Smarch 2026',
      'soon',
      '',
    ])
      expect(at(bad), bad).toBeNull();
    expect(isoDate(undefined, NOW)).toBeNull();
  });
});

describe('the article text', () => {
  it('wins over a newsletter box of ~250 characters beside it (Readability’s default charThreshold)', () => {
    // The first pass drops the layout wrapper as "unlikely" (its class says sidebar); a low
    // charThreshold then settled for the sign-up box, the only long text left.
    const html = `<!doctype html><html lang="en"><head><title>Acme recalls toasters | Daily Planet</title></head><body>
<nav><a href="/">Home</a> <a href="/world">World</a></nav>
<div class="layout layout--with-sidebar"><div class="story"><h1>Acme recalls toasters</h1>${[1, 2, 3, 4, 5, 6].map(paragraph).join('')}</div></div>
<div class="site-bottom"><div class="newsletter-signup"><h3>Get the Morning Briefing</h3><p>Every weekday at six: the five stories you need before your first coffee, picked by our editors and delivered free to your inbox, with no ads. Sign up now and join more than 80,000 readers who start the day with us.</p><form><input type="email" placeholder="Your email"><button>Subscribe</button></form></div></div>
<footer>© Daily Planet</footer></body></html>`;
    const a = extractArticle(html, 'https://planet.example/a')!;
    expect(a.text).toContain('Paragraph 1: Acme Corp confirmed');
    expect(a.text).toContain('Paragraph 6');
    expect(a.text).not.toContain('Morning Briefing');
  });

  it('is cut at a paragraph when longer than the limit, never mid-sentence', () => {
    const many = Array.from({ length: 600 }, (_, i) => paragraph(i + 1)).join('');
    const a = extractArticle(page('<title>Acme</title>', many), 'https://planet.example/a')!;
    expect(a.text.length).toBeLessThanOrEqual(100_000);
    expect(a.text.length).toBeGreaterThan(90_000);
    expect(a.text.endsWith('The company said customers will be refunded in full.')).toBe(true);
    expect(a.text.split('\n\n').every((p) => /^Paragraph \d+: .* in full\.$/.test(p))).toBe(true);
  });
});

describe('the text a reader sees', () => {
  const ARTICLE = [1, 2, 3, 4].map(paragraph).join('');
  const textOf = (body: string) =>
    extractArticle(page('<title>Acme recalls toasters</title>', body), 'https://news.example/a')!
      .text;

  it.each([
    [
      'a caption',
      `<figure><img src="t.jpg"><figcaption>Acme's toaster plant in Ohio.</figcaption></figure>${ARTICLE}`,
      "Acme's toaster plant",
    ],
    [
      'a credit by its class',
      `${ARTICLE}<p class="image-credit">Photo: Globex Images</p>`,
      'Globex Images',
    ],
    ['a credit line', `${ARTICLE}<p>Image credit: Globex Images</p>`, 'Globex Images'],
    [
      'a share block by its class',
      `<div class="share-tools">Share on Twitter Share on Facebook</div>${ARTICLE}`,
      'Share on',
    ],
    [
      'a newsletter box by its class',
      `${ARTICLE}<div class="newsletter-signup"><p>Get our morning briefing.</p></div>`,
      'morning briefing',
    ],
    [
      'a newsletter pitch',
      `${ARTICLE}<p>Sign up for our daily newsletter to get stories like this.</p>`,
      'Sign up',
    ],
    [
      'a follow line',
      `${ARTICLE}<p>Follow @planetdeals on Twitter for more deals.</p>`,
      'planetdeals',
    ],
    [
      'related links under their heading',
      `${ARTICLE}<h3>You may also like...</h3><p><a href="/1">Globex opens a plant?</a></p><p><a href="/2">Initech hires a CEO</a></p>`,
      'Globex opens',
    ],
    [
      'related links by their class',
      `${ARTICLE}<ul class="related-links"><li><a href="/1">Globex opens a plant</a></li><li><a href="/2">Initech hires</a></li></ul>`,
      'Globex opens',
    ],
    ['a tags line', `${ARTICLE}<p>Tags: toasters, recalls, Globex</p>`, 'Globex'],
    [
      'a reference list',
      `${ARTICLE}<p>[1] Globex Institute, Toaster safety report, 2025.</p>`,
      'Globex Institute',
    ],
    ['a timestamp', `<p>Updated Nov 19, 6:55 AM; Posted Nov 19, 6:51 AM</p>${ARTICLE}`, 'Updated'],
    [
      'a section label and byline before the first paragraph',
      `<p>Business</p><p>By Lois Lane - 11/18/26 11:04 PM EST</p>${ARTICLE}`,
      'Lois Lane',
    ],
    [
      'a comments section',
      `${ARTICLE}<div class="comments"><p>Globex is better, says a reader.</p></div>`,
      'Globex is better',
    ],
  ])('leaves out %s', (_what, body, furniture) => {
    const text = textOf(body);
    expect(text).toContain('Paragraph 4');
    expect(text).not.toContain(furniture);
  });

  it('keeps a related-looking paragraph of the article, and subheadings in it', () => {
    const text = textOf(
      `${[1, 2].map(paragraph).join('')}<h2>What customers should do</h2>${[3, 4].map(paragraph).join('')}<p>Follow-up checks by Acme found no fault in the newer models, the company said.</p>`,
    );
    expect(text).toContain('What customers should do');
    expect(text).toContain('Follow-up checks by Acme');
  });

  it('joins lines a <br> or the source wrapped mid-sentence, and keeps paragraphs apart', () => {
    const text = textOf(
      `<p>Acme Corp confirmed on Monday that the recall of its\ntoaster line covers every unit<br>sold since March, after regulators reported overheating.</p><p>Line one of a poem<br>Line two of a poem</p>${[1, 2, 3].map(paragraph).join('')}`,
    );
    expect(text).toContain(
      'Acme Corp confirmed on Monday that the recall of its toaster line covers every unit sold since March, after regulators reported overheating.',
    );
    expect(text).toContain('Line one of a poem\nLine two of a poem');
    expect(text).toContain('overheating.\n\nLine one');
  });

  it('keeps Japanese paragraphs, whose sentences end with 。', () => {
    const ja = Array.from(
      { length: 6 },
      (_, i) =>
        `<p>アクメ社は第${i + 1}四半期にトースターの回収を発表した。規制当局によると、複数の市場で過熱が報告されている。</p>`,
    ).join('');
    expect(textOf(ja).split('\n\n')).toHaveLength(6);
  });
});

describe('the headline', () => {
  it('is the article’s <h1> when og:title is the site’s name', () => {
    const html = page(
      `<title>Daily Planet</title><meta property="og:title" content="Daily Planet"><meta property="og:site_name" content="Daily Planet">`,
      `<h1>Acme recalls toasters</h1>${body4}`,
    );
    expect(extractArticle(html, 'https://planet.example/a')!.title).toBe('Acme recalls toasters');
  });

  it('is the JSON-LD headline when og:title is a line written for sharing', () => {
    const html = page(
      `<title>Daily Planet</title><meta property="og:title" content="You won't believe what Acme just did">
${ld({ '@context': 'https://schema.org', '@type': 'NewsArticle', headline: 'Acme recalls toasters' })}`,
      body4,
    );
    expect(extractArticle(html, 'https://planet.example/a')!.title).toBe('Acme recalls toasters');
  });

  it('decodes the HTML entities publishers write into a JSON-LD headline', () => {
    const html = page(
      `<title>Daily Planet</title><meta property="og:title" content="You won't believe what Acme just did">
${ld({ '@context': 'https://schema.org', '@type': 'NewsArticle', headline: 'Acme recalls &#8216;Toasty&#8217; toasters &amp; kettles' })}`,
      body4,
    );
    expect(extractArticle(html, 'https://planet.example/a')!.title).toBe(
      'Acme recalls ‘Toasty’ toasters & kettles',
    );
  });

  it('loses a site-name tail spelled differently from the publisher ("| TheHill" for The Hill)', () => {
    const html = page(
      `<title>Governor doubles down on campaign | TheHill</title><meta property="og:site_name" content="The Hill">`,
      body4,
    );
    expect(extractArticle(html, 'https://planet.example/a')!.title).toBe(
      'Governor doubles down on campaign',
    );
  });

  it('is Readability’s title when the page has no headline of its own', () => {
    const html = page(
      `<title>Acme recalls toasters | Daily Planet</title><meta property="og:site_name" content="Daily Planet">`,
      body4,
    );
    expect(extractArticle(html, 'https://planet.example/a')!.title).toBe('Acme recalls toasters');
  });
});

describe('the byline', () => {
  it('is the JSON-LD author’s name, a reference into the @graph resolved', () => {
    const html = page(
      `<title>Acme</title>${ld({
        '@context': 'https://schema.org',
        '@graph': [
          { '@type': 'Person', '@id': '#lois', name: 'Lois Lane' },
          { '@type': 'NewsArticle', author: { '@id': '#lois' } },
        ],
      })}`,
      `<h1>Acme recalls toasters</h1>${body4}`,
    );
    expect(extractArticle(html, 'https://planet.example/a')!.author).toBe('Lois Lane');
  });

  it('is Readability’s byline otherwise, without "By" and the date', () => {
    const html = page(
      '<title>Acme</title>',
      `<h1>Acme recalls toasters</h1><p class="byline">By Lois Lane · November 20, 2026</p>${body4}`,
    );
    expect(extractArticle(html, 'https://planet.example/a')!.author).toBe('Lois Lane');
  });
});

describe('cleanText on hostile whitespace', () => {
  it('stays linear: a long run of em spaces around a line break (once quadratic)', () => {
    const s = `${'\u2003'.repeat(50_000)}\n${'\u2003'.repeat(50_000)}x`;
    expect(cleanText(s, 1000)).toBe('x');
    expect(cleanText('a \n \n\n  b\r\n\r\nc  \u2003 d', 100)).toBe('a\n\nb\n\nc d');
  });

  it('cuts at a paragraph, else a sentence or a word, never inside a surrogate pair', () => {
    expect(cleanText('First one.\n\nSecond one.\n\nThird one.', 30)).toBe(
      'First one.\n\nSecond one.',
    );
    expect(cleanText('First one. Second one. Third one.', 25)).toBe('First one. Second one.');
    expect(cleanText('Acme recalls its toasters worldwide', 20)).toBe('Acme recalls its');
    expect(cleanText(`${'x'.repeat(9)}😀`, 10)).toBe('x'.repeat(9));
  });
});

describe('the publisher', () => {
  it('is the site name, unless that is only the subdomain’s label ("Hosted" on hosted.ap.org)', () => {
    const named = page(`<meta property="og:site_name" content="Daily Planet">`, body4);
    expect(extractArticle(named, 'https://news.planet.example/a')!.publisher).toBe('Daily Planet');
    const hosted = page(`<meta property="og:site_name" content="Hosted">`, body4);
    expect(extractArticle(hosted, 'https://hosted.ap.org/citizensvoice/a')!.publisher).toBe(
      'ap.org',
    );
    expect(extractArticle(page('', body4), 'https://planet.example/a')!.publisher).toBe(
      'planet.example',
    );
  });
});
