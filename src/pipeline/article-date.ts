import type { Doc, El } from './dom.js';
import { parseInstant } from './feed-date.js';
import { articles, firstString, isArticle, type Json, type JsonLd } from './json-ld.js';

/**
 * An article's publication date (docs/pipeline.md, "Extraction"): JSON-LD and metas before
 * any <time>, never a modified date, read exactly and only within a believable range.
 */
/** The earliest publication date believed: nothing on the web is older than 1991. */
const EARLIEST = Date.UTC(1991, 0, 1);
/** How far ahead of now a date may be (a page written where it is already tomorrow). */
const AHEAD_MS = 86_400_000;

const SLASH_DATE = /^(\d{4})\/(\d{1,2})\/(\d{1,2})$/;

/**
 * A stated date as an ISO date-time, or null when it cannot be read exactly or is out of
 * range (before 1991, or more than a day after `now`). Read with the feeds' grammar
 * (feed-date.ts: ISO 8601, RFC 2822 with zone names, "12 November 2026", "November 12,
 * 2026", month names of the main European languages; a time without a zone is UTC), plus
 * "2026/11/12": Date.parse would make 2001-03-01 out of "Monday 3" and 2 March out of
 * 30 February.
 */
export function isoDate(value: unknown, now: Date = new Date()): string | null {
  if (typeof value !== 'string' || value.length > 200) return null;
  const s = value.trim().replace(/\s+/g, ' ');
  const slash = SLASH_DATE.exec(s);
  const t = slash ? slashDate(slash) : parseInstant(s);
  if (t === null || t < EARLIEST || t > now.getTime() + AHEAD_MS) return null;
  return new Date(t).toISOString();
}

function slashDate([, y, m, d]: RegExpExecArray): number | null {
  const t = Date.UTC(Number(y), Number(m) - 1, Number(d));
  // Date.UTC rolls 30 February over into March; a date that does not exist is refused.
  return new Date(t).getUTCDate() === Number(d) && Number(m) <= 12 ? t : null;
}

/** The page's <meta> values by lower-cased name or property (the first one of each). */
export function metaValues(doc: Doc): Map<string, string> {
  const values = new Map<string, string>();
  for (const el of doc.querySelectorAll('meta[content]')) {
    const content = el.getAttribute('content')?.trim();
    if (!content) continue;
    for (const key of [el.getAttribute('property'), el.getAttribute('name')]) {
      const k = key?.trim().toLowerCase();
      if (k && !values.has(k)) values.set(k, content);
    }
  }
  return values;
}

/**
 * Metas that state the publication, in this order. Never a modified date:
 * article:modified_time, og:updated_time and the like are not read at all.
 */
const PUBLISHED_METAS = [
  'article:published_time',
  'og:published_time',
  'pubdate',
  'date',
  'dc.date.issued',
  'dcterms.issued',
  'parsely-pub-date',
];

/** A <time> (or microdata element) that is marked as a modified date, not the publication. */
const isModified = (el: El) =>
  /\bdateModified\b/i.test(el.getAttribute('itemprop') ?? '') ||
  (/modified|updated/i.test(el.getAttribute('class') ?? '') &&
    !/published/i.test(el.getAttribute('class') ?? ''));
/** Parts of a page that hold other articles' dates: sidebars, related links, comments. */
export const ASIDE =
  'aside, nav, footer, [role="complementary"], [class*="related" i], [class*="sidebar" i], [class*="comment" i], [id*="comment" i], [class*="recommend" i], [class*="teaser" i]';
const BYLINE = '[class*="byline" i], [id*="byline" i], [class*="dateline" i]';

const timeValue = (el: El) =>
  el.getAttribute('datetime') ?? el.getAttribute('content') ?? el.textContent ?? '';

/**
 * A <time> only when it is marked as the publication: itemprop="datePublished" (or a
 * microdata <meta> so marked), then the pubdate attribute, then, when nothing else exists,
 * the first <time> in the article's header or byline: a <header> inside the <article>, an
 * element whose class says byline or dateline, or the line right after the headline.
 * Never one in a sidebar, related links or comments (ASIDE): those date other articles.
 */
function timeDate(doc: Doc, now: Date): string | null {
  for (const el of doc.querySelectorAll('[itemprop~="datePublished" i]')) {
    const date = !el.closest(ASIDE) && isoDate(timeValue(el), now);
    if (date) return date;
  }
  for (const el of doc.querySelectorAll('time[pubdate]')) {
    const date = !isModified(el) && !el.closest(ASIDE) && isoDate(timeValue(el), now);
    if (date) return date;
  }
  const headline = doc.querySelector('article h1') ?? doc.querySelector('h1');
  const afterHeadline = headline?.nextElementSibling;
  for (const el of doc.querySelectorAll('time')) {
    if (isModified(el) || el.closest(ASIDE)) continue;
    const inHeader =
      el.closest('article header') ||
      el.closest(BYLINE) ||
      (afterHeadline && (afterHeadline === el || afterHeadline.contains(el))) ||
      (headline?.parentElement?.tagName === 'HEADER' && headline.parentElement.contains(el));
    if (!inHeader) continue;
    return isoDate(timeValue(el), now);
  }
  return null;
}

/**
 * The publication date, first found of: JSON-LD datePublished of the article (an Article,
 * NewsArticle, BlogPosting… at the top, in a @graph, or nested as a WebPage's
 * mainEntity); the metas of PUBLISHED_METAS in order; JSON-LD datePublished of another
 * object (a WebPage, a Recipe); a <time> marked as the publication (timeDate). A modified
 * date is never read; a date that is out of range or cannot be read exactly is skipped,
 * and with nothing else the answer is null.
 */
export function publishedDate(doc: Doc, metas: Map<string, string>, ld: JsonLd, now: Date) {
  const fromLd = (nodes: Json[]) => {
    for (const node of nodes) {
      const date = isoDate(firstString(node.datePublished), now);
      if (date) return date;
    }
    return null;
  };
  const fromMetas = () => {
    for (const name of PUBLISHED_METAS) {
      const date = isoDate(metas.get(name), now);
      if (date) return date;
    }
    return null;
  };
  return (
    fromLd(articles(ld)) ??
    fromMetas() ??
    fromLd(ld.nodes.filter((n) => !isArticle(n))) ??
    timeDate(doc, now)
  );
}
