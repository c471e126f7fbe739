import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { ASIDE, metaValues, publishedDate } from './article-date.js';
import { blockText, cleanText, dropFurniture, MAX_TEXT, MAX_TITLE } from './article-text.js';
import type { Doc } from './dom.js';
import {
  articles,
  authorNames,
  firstString,
  isOpinion,
  type JsonLd,
  readJsonLd,
} from './json-ld.js';

/** The readable article of a page, as plain text: nothing of the page's markup is kept. */
export interface ExtractedArticle {
  /** The page's own headline (see extractArticle). */
  title: string;
  publisher: string;
  /** The byline: the JSON-LD article's author name(s), else Readability's byline. */
  author: string | null;
  /** ISO 8601 date-time when the page states one, else null. */
  published_at: string | null;
  text: string;
  /** The page's canonical URL when it names an http(s) one, else the URL it was read from. */
  canonical_url: string;
  lang: string | null;
  /**
   * The page declares itself opinion (a column, an op-ed, an editorial): its
   * `article:opinion` is true, its `article:section` is Opinion, Commentary or Editorial(s),
   * or its JSON-LD article is an OpinionNewsArticle.
   */
  opinion: boolean;
}

/** Sections that are opinion, as pages name them in `article:section`. */
const OPINION_SECTION =
  /^(?:opinions?|commentary|comment|editorials?|op-?eds?|columns?|columnists?)\b/i;

/**
 * The page's own headline: the <h1> of its <article>, else an element marked
 * itemprop="headline", else the JSON-LD article's headline.
 */
function ownHeadline(doc: Doc, ld: JsonLd): string | null {
  for (const el of [
    ...doc.querySelectorAll('article h1'),
    ...doc.querySelectorAll('[itemprop~="headline" i]'),
  ]) {
    if (el.closest(ASIDE)) continue;
    const text = (el.getAttribute('content') ?? el.textContent ?? '').trim();
    if (text) return text;
  }
  for (const node of articles(ld)) {
    const headline = firstString(node.headline)?.trim();
    if (headline) return headline;
  }
  return null;
}

/** "By Helen Varga · November 16, 2026" → "Helen Varga": no "By", no trailing date or time. */
function tidyByline(byline: string): string {
  // Texts and their separators alternate: [text, separator, text, …].
  const parts = byline.replace(/^by:?\s+/i, '').split(/(\s+[·|•—]\s+)/);
  while (parts.length > 2 && /\d/.test(parts.at(-1)!)) parts.splice(-2);
  return parts.join('');
}

/** "Acme recalls toasters | Daily Planet" → "Acme recalls toasters". */
function withoutSiteName(title: string, publisher: string): string {
  // "… | TheHill" for "The Hill": the same name whatever its spacing and case.
  const bare = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  const name = bare(publisher);
  for (const sep of [' | ', ' - ', ' – ', ' — ', ' · ']) {
    const at = title.lastIndexOf(sep);
    if (at > 0 && name && bare(title.slice(at + sep.length)) === name) return title.slice(0, at);
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
 * Reads the article out of an HTML page with Mozilla's Readability (the engine of
 * Firefox's reader view) over linkedom. Only text leaves here, so no markup, script or
 * link of the page is ever stored or rendered. Answers null when the page holds no
 * readable article. `now` bounds the publication dates believed (see isoDate).
 *
 * Readability runs with its defaults: a lower charThreshold (it was 200) lets it settle
 * for the first block that long, such as a newsletter sign-up box, when the first pass
 * has dropped the article's container as "unlikely".
 */
export function extractArticle(
  html: string,
  pageUrl: string,
  now: Date = new Date(),
): ExtractedArticle | null {
  const { document: doc } = parseHTML(html);
  const canonical = canonicalOf(doc, pageUrl);
  const metas = metaValues(doc);
  const ld = readJsonLd(doc);
  // Read before Readability, which takes the scripts out and rewrites the document.
  const published = publishedDate(doc, metas, ld, now);
  const headline = ownHeadline(doc, ld);
  const ldAuthor = articles(ld)
    .map((node) =>
      authorNames(node.author, ld)
        .map((n) => n.trim())
        .filter(Boolean),
    )
    .find((names) => names.length > 0);
  const opinion =
    metas.get('article:opinion')?.toLowerCase() === 'true' ||
    OPINION_SECTION.test(metas.get('article:section') ?? '') ||
    articles(ld).some(isOpinion);
  const docTitle = doc.querySelector('title')?.textContent ?? '';
  const lang = doc.documentElement?.getAttribute('lang') || null;
  if (doc.body) dropFurniture(doc.body, true);
  // Readability is typed against the DOM library; linkedom's document is what it runs on.
  const article = new Readability(doc as never, { keepClasses: true }).parse();
  if (!article?.textContent) return null;
  const text = cleanText(blockText(article.content) ?? article.textContent, MAX_TEXT);
  if (text.length < 200) return null;
  const publisher = publisherOf(article.siteName || metas.get('og:site_name'), canonical);
  // The headline the page gives its article wins over og:title, which is often the site's
  // name or a line written for sharing; without one, Readability's title (JSON-LD name,
  // og:title… or the <title>), then the <title>; never the publisher's name alone.
  const title = [headline, article.title, docTitle]
    .map((t) => withoutSiteName(cleanText(t ?? '', MAX_TITLE), publisher))
    .find((t) => t && t.toLowerCase() !== publisher.toLowerCase());
  const byline = ldAuthor?.join(', ') ?? (article.byline ? tidyByline(article.byline) : '');
  return {
    title: title || new URL(canonical).hostname,
    publisher,
    author: cleanText(byline, 200) || null,
    published_at: published,
    text,
    canonical_url: canonical,
    lang: article.lang || lang,
    opinion,
  };
}

/**
 * The publisher's name: the page's site name, unless that is only the label of the
 * subdomain it is served from ("Hosted" on hosted.ap.org), which names no one; then, as
 * without a site name, the host (without that label: "ap.org").
 */
function publisherOf(siteName: string | null | undefined, url: string): string {
  const host = new URL(url).hostname;
  const [label, ...rest] = host.split('.');
  const name = cleanText(siteName ?? '', 200);
  if (!name) return host;
  return rest.length >= 2 && name.toLowerCase() === label ? rest.join('.') : name;
}
