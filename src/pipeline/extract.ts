import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';

/** The readable article of a page, as plain text: nothing of the page's markup is kept. */
export interface ExtractedArticle {
  title: string;
  publisher: string;
  author: string | null;
  /** ISO 8601 date-time when the page states one, else null. */
  published_at: string | null;
  text: string;
  /** The page's canonical URL when it names an http(s) one, else the URL it was read from. */
  canonical_url: string;
  lang: string | null;
}

const MAX_TITLE = 500;
const MAX_TEXT = 100_000;

/** Plain text as stored: control characters out (NUL included), whitespace collapsed. */
export function cleanText(s: string, max: number): string {
  return (
    s
      .replace(/(?![\n\t\r])\p{Cc}/gu, '')
      .replace(/\r\n?/g, '\n')
      // Every run of whitespace but line breaks becomes one space first, so the next
      // pattern is linear: no nested quantifiers over the same characters (no ReDoS).
      .replace(/[^\S\n]+/g, ' ')
      .replace(/ ?\n(?: ?\n)+ ?/g, '\n\n')
      .trim()
      .slice(0, max)
  );
}

/** linkedom's document (the project has no DOM library types). */
type Doc = ReturnType<typeof parseHTML>['document'];

const meta = (doc: Doc, selector: string) =>
  doc.querySelector(selector)?.getAttribute('content')?.trim() || null;

function isoDate(value: string | null | undefined): string | null {
  if (!value) return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** datePublished from the page's JSON-LD, if any block states one. */
function jsonLdDate(doc: Doc): string | null {
  for (const script of doc.querySelectorAll('script[type="application/ld+json"]')) {
    try {
      const data = JSON.parse(script.textContent ?? '');
      for (const item of Array.isArray(data) ? data : [data, ...(data?.['@graph'] ?? [])]) {
        const date = isoDate(item?.datePublished);
        if (date) return date;
      }
    } catch {
      // A broken block says nothing.
    }
  }
  return null;
}

/** "Acme recalls toasters | Daily Planet" → "Acme recalls toasters". */
function withoutSiteName(title: string, publisher: string): string {
  for (const sep of [' | ', ' - ', ' – ', ' — ', ' · ']) {
    if (title.endsWith(`${sep}${publisher}`))
      return title.slice(0, -(sep.length + publisher.length));
  }
  return title;
}

function canonicalOf(doc: Doc, pageUrl: string): string {
  const href = doc.querySelector('link[rel="canonical"]')?.getAttribute('href');
  if (!href) return pageUrl;
  try {
    const url = new URL(href, pageUrl);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : pageUrl;
  } catch {
    return pageUrl;
  }
}

/**
 * The text of Readability's cleaned HTML with a line break after every block, so a
 * heading and the paragraph after it stay two sentences (its textContent runs them
 * together).
 */
function blockText(content: string | null | undefined): string | null {
  if (!content) return null;
  const marked = content
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(
      /<\/(p|h[1-6]|li|div|blockquote|section|article|header|pre|tr|figcaption)>/gi,
      '$&\n\n',
    );
  return (
    parseHTML(`<!doctype html><html><body>${marked}</body></html>`).document.body?.textContent ??
    null
  );
}

/**
 * Reads the article out of an HTML page with Mozilla's Readability (the engine of
 * Firefox's reader view) over linkedom. Only text leaves here, so no markup, script or
 * link of the page is ever stored or rendered. Answers null when the page holds no
 * readable article.
 */
export function extractArticle(html: string, pageUrl: string): ExtractedArticle | null {
  const { document: doc } = parseHTML(html);
  const canonical = canonicalOf(doc, pageUrl);
  const metaDate =
    isoDate(meta(doc, 'meta[property="article:published_time"]')) ??
    isoDate(meta(doc, 'meta[name="date"]')) ??
    isoDate(doc.querySelector('time[datetime]')?.getAttribute('datetime')) ??
    jsonLdDate(doc);
  const siteName = meta(doc, 'meta[property="og:site_name"]');
  const lang = doc.documentElement?.getAttribute('lang') || null;
  // Readability is typed against the DOM library; linkedom's document is what it runs on.
  const article = new Readability(doc as never, { charThreshold: 200 }).parse();
  if (!article?.textContent) return null;
  const text = cleanText(blockText(article.content) ?? article.textContent, MAX_TEXT);
  if (text.length < 200) return null;
  const publisher = cleanText(article.siteName || siteName || new URL(canonical).hostname, 200);
  const title = withoutSiteName(
    cleanText(meta(doc, 'meta[property="og:title"]') || article.title || '', MAX_TITLE),
    publisher,
  );
  return {
    title: title || new URL(canonical).hostname,
    publisher,
    author: article.byline ? cleanText(article.byline, 200) : null,
    published_at: isoDate(article.publishedTime) ?? metaDate,
    text,
    canonical_url: canonical,
    lang: article.lang || lang,
  };
}
