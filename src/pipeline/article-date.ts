import type { Doc, El } from './dom.js';
import { articles, firstString, isArticle, type Json, type JsonLd } from './json-ld.js';

/**
 * An article's publication date (docs/pipeline.md, "Extraction"): JSON-LD and metas before
 * any <time>, never a modified date, read exactly and only within a believable range.
 */
/** The earliest publication date believed: nothing on the web is older than 1991. */
const EARLIEST = Date.UTC(1991, 0, 1);
/** How far ahead of now a date may be (a page written where it is already tomorrow). */
const AHEAD_MS = 86_400_000;

const MONTHS = 'jan feb mar apr may jun jul aug sep oct nov dec'.split(' ');
/** The zone names of RFC 2822, in minutes east of UTC. */
const ZONES: Record<string, number> = {
  z: 0,
  ut: 0,
  utc: 0,
  gmt: 0,
  est: -300,
  edt: -240,
  cst: -360,
  cdt: -300,
  mst: -420,
  mdt: -360,
  pst: -480,
  pdt: -420,
};
const monthOf = (name: string): number | undefined =>
  /^(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)$/i.test(
    name,
  )
    ? MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1
    : undefined;

/** Minutes east of UTC for "Z", "+02:00", "+0200", "+02", "GMT", "EST"…; undefined if unknown. */
function zoneOffset(zone: string | undefined): number | undefined {
  if (!zone) return 0; // A time without a zone is read as UTC, not as this server's zone.
  const named = ZONES[zone.toLowerCase()];
  if (named !== undefined) return named;
  const m = /^(?:GMT|UTC)?([+-])(\d{2}):?(\d{2})?$/i.exec(zone);
  if (!m) return undefined;
  const [h, min] = [Number(m[2]), Number(m[3] ?? 0)];
  if (h > 14 || min > 59) return undefined;
  return (m[1] === '-' ? -1 : 1) * (h * 60 + min);
}

const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}(?:[.,]\d{1,9})?))? ?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
const SLASH_DATE = /^(\d{4})\/(\d{1,2})\/(\d{1,2})$/;
/** "Tue, 12 Nov 2026 08:30:00 GMT", "12 November 2026", "12. November 2026". */
const DAY_MONTH_YEAR =
  /^(?:[a-z]{3,9},? )?(\d{1,2})\.? ([a-z]{3,9})\.? (\d{4})(?:,? (\d{1,2}):(\d{2})(?::(\d{2}))?(?: ?([a-z]{1,3}|(?:GMT|UTC)?[+-]\d{2}:?\d{2}))?)?$/i;
/** "November 12, 2026", "Nov. 12 2026", "Thursday, November 12, 2026". */
const MONTH_DAY_YEAR = /^(?:[a-z]{3,9},? )?([a-z]{3,9})\.? (\d{1,2}),? (\d{4})$/i;

/** [year, month, day, hour?, minute?, second?, zone?] of the forms isoDate reads. */
function dateParts(s: string): (string | undefined)[] | null {
  const iso = ISO_DATE.exec(s);
  if (iso) return iso.slice(1, 8);
  const slash = SLASH_DATE.exec(s);
  if (slash) return slash.slice(1, 4);
  const dmy = DAY_MONTH_YEAR.exec(s);
  if (dmy) return [dmy[3], String(monthOf(dmy[2]!) ?? ''), dmy[1], ...dmy.slice(4, 8)];
  const mdy = MONTH_DAY_YEAR.exec(s);
  if (mdy) return [mdy[3], String(monthOf(mdy[1]!) ?? ''), mdy[2]];
  return null;
}

/**
 * A stated date as an ISO date-time, or null when it cannot be read exactly or is out of
 * range (before 1991, or more than a day after `now`). Only the forms pages actually use
 * are read (ISO 8601, RFC 2822, "12 November 2026", "November 12, 2026", "2026/11/12"):
 * Date.parse would make 2001-03-01 out of "Monday 3" and 2 March out of 30 February.
 */
export function isoDate(value: unknown, now: Date = new Date()): string | null {
  if (typeof value !== 'string' || value.length > 200) return null;
  const s = value.trim().replace(/\s+/g, ' ');
  const parts = dateParts(s);
  if (!parts) return null;
  const [year, month, day, hour = 0, minute = 0, second = 0] = parts
    .slice(0, 6)
    .map((p) => (p === undefined ? undefined : Number(p.replace(',', '.'))));
  const offset = zoneOffset(parts[6]);
  if (!year || !month || !day || offset === undefined) return null;
  if (month > 12 || hour > 23 || minute > 59 || !(second < 60)) return null;
  // Date.UTC rolls 30 February over into March; a date that does not exist is refused.
  const local = Date.UTC(year, month - 1, day, hour, minute) + Math.floor(second * 1000);
  if (new Date(local).getUTCDate() !== day) return null;
  const t = local - offset * 60_000;
  if (t < EARLIEST || t > now.getTime() + AHEAD_MS) return null;
  return new Date(t).toISOString();
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
