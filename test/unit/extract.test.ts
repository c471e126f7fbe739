import { describe, expect, it } from 'vitest';
import { cleanText, extractArticle } from '../../src/pipeline/extract.js';

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

  it('answers null for a page without an article', () => {
    expect(extractArticle('<html><body><p>Hi</p></body></html>', 'https://x.example/')).toBeNull();
  });
});

describe('cleanText on hostile whitespace', () => {
  it('stays linear: a long run of em spaces around a line break (once quadratic)', () => {
    const s = `${'\u2003'.repeat(50_000)}\n${'\u2003'.repeat(50_000)}x`;
    expect(cleanText(s, 1000)).toBe('x');
    expect(cleanText('a \n \n\n  b\r\n\r\nc  \u2003 d', 100)).toBe('a\n\nb\n\nc d');
  });
});
