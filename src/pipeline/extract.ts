import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';

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
}

const MAX_TITLE = 500;
const MAX_TEXT = 100_000;

/**
 * Where a text longer than `max` is cut: at the last paragraph break that keeps at least
 * half of it, else the last line break, sentence end or space, so a stored text ends on a
 * whole paragraph (or at worst a whole word), never mid-sentence.
 */
function cutAt(s: string, max: number): string {
  if (s.length <= max) return s;
  const head = s.slice(0, max + 1);
  // Each boundary, with how many of its characters the kept text ends with.
  const boundaries: [RegExp, number][] = [
    [/\n\n/g, 0],
    [/\n/g, 0],
    [/[.!?…。](?=\s)/g, 1],
    [/\s/g, 0],
  ];
  for (const [boundary, kept] of boundaries) {
    let at = -1;
    for (const m of head.matchAll(boundary)) if (m.index + kept <= max) at = m.index + kept;
    if (at >= max / 2) return s.slice(0, at).trimEnd();
  }
  // One word longer than half the limit: cut it, but not between the halves of a pair.
  const code = s.charCodeAt(max - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/**
 * Plain text as stored: control characters out (NUL included), whitespace collapsed, and
 * no longer than `max`, cut at a paragraph (see cutAt).
 */
export function cleanText(s: string, max: number): string {
  return cutAt(
    s
      .replace(/(?![\n\t\r])\p{Cc}/gu, '')
      .replace(/\r\n?/g, '\n')
      // Every run of whitespace but line breaks becomes one space first, so the next
      // pattern is linear: no nested quantifiers over the same characters (no ReDoS).
      .replace(/[^\S\n]+/g, ' ')
      .replace(/ ?\n(?: ?\n)+ ?/g, '\n\n')
      .trim(),
    max,
  );
}

/** linkedom's document (the project has no DOM library types). */
type Doc = ReturnType<typeof parseHTML>['document'];
type El = NonNullable<ReturnType<Doc['querySelector']>>;

// ---------------------------------------------------------------------------------------
// Dates

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
function metaValues(doc: Doc): Map<string, string> {
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

// ---------------------------------------------------------------------------------------
// JSON-LD

type Json = Record<string, unknown>;
const ARTICLE_TYPE =
  /^(?:Article|AdvertiserContentArticle|NewsArticle|AnalysisNewsArticle|AskPublicNewsArticle|BackgroundNewsArticle|OpinionNewsArticle|ReportageNewsArticle|ReviewNewsArticle|Report|SatiricalArticle|ScholarlyArticle|MedicalScholarlyArticle|SocialMediaPosting|BlogPosting|LiveBlogPosting|DiscussionForumPosting|TechArticle|APIReference)$/;
/** Where a page nests its article inside another object (a WebPage's mainEntity…). */
const NESTING_KEYS = ['mainEntity', 'mainEntityOfPage', 'hasPart'];
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const typesOf = (node: Json): string[] =>
  (Array.isArray(node['@type']) ? node['@type'] : [node['@type']])
    .filter((t): t is string => typeof t === 'string')
    // "https://schema.org/NewsArticle" and "schema:NewsArticle" are NewsArticle.
    .map((t) => t.replace(/^.*[/:#]/, ''));
const isArticle = (node: Json) => typesOf(node).some((t) => ARTICLE_TYPE.test(t));

interface JsonLd {
  /** Every object of the page's JSON-LD, outermost first (breadth first), @graph flattened. */
  nodes: Json[];
  /** Objects with an @id, to resolve references such as "author": {"@id": "#lois"}. */
  byId: Map<string, Json>;
}

/** Bounds on what is read of a page's JSON-LD, whatever a page puts there. */
const LD_DEPTH = 4;
const LD_NODES = 1_000;
const LD_NESTED_ARRAYS = 4;

/**
 * The page's JSON-LD blocks; a block that does not parse says nothing. Read a few levels
 * deep, outermost first: the page's own article is at the top, in a @graph, or a
 * WebPage's mainEntity; whatever lies deeper is rarely the page itself.
 */
function readJsonLd(doc: Doc): JsonLd {
  const levels: Json[][] = Array.from({ length: LD_DEPTH }, () => []);
  const byId = new Map<string, Json>();
  let count = 0;
  const visit = (item: unknown, depth: number, arrays = 0): void => {
    if (depth >= LD_DEPTH) return;
    if (Array.isArray(item)) {
      if (arrays >= LD_NESTED_ARRAYS) return;
      for (const member of item) {
        if (count >= LD_NODES) return;
        visit(member, depth, arrays + 1);
      }
      return;
    }
    if (!isObject(item) || count >= LD_NODES) return;
    count++;
    levels[depth]!.push(item);
    const id = item['@id'];
    if (typeof id === 'string' && !byId.has(id)) byId.set(id, item);
    visit(item['@graph'], depth);
    for (const key of NESTING_KEYS) visit(item[key], depth + 1);
  };
  for (const script of doc.querySelectorAll('script[type="application/ld+json" i]')) {
    let data: unknown;
    try {
      data = JSON.parse(
        (script.textContent ?? '').replace(/^\s*(?:<!\[CDATA\[|<!--)|(?:\]\]>|-->)\s*$/g, ''),
      );
    } catch {
      continue; // A broken block says nothing.
    }
    visit(data, 0);
  }
  return { nodes: levels.flat(), byId };
}

const articles = (ld: JsonLd) => ld.nodes.filter(isArticle);
/** "x", ["x", …] or {"@value": "x"}: the string, else undefined. */
function firstString(value: unknown): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (typeof v === 'string') return v;
  return isObject(v) && typeof v['@value'] === 'string' ? v['@value'] : undefined;
}

/** The names in an author value: "Lois", {name}, {"@id"} of a Person in the graph, or a list. */
function authorNames(value: unknown, ld: JsonLd): string[] {
  return (Array.isArray(value) ? value.slice(0, 20) : [value]).flatMap((author) => {
    if (typeof author === 'string') return [author];
    if (!isObject(author)) return [];
    const node =
      author.name === undefined && typeof author['@id'] === 'string'
        ? ld.byId.get(author['@id'])
        : author;
    const name = firstString(node?.name);
    return name ? [name] : [];
  });
}

// ---------------------------------------------------------------------------------------
// <time>

/** A <time> (or microdata element) that is marked as a modified date, not the publication. */
const isModified = (el: El) =>
  /\bdateModified\b/i.test(el.getAttribute('itemprop') ?? '') ||
  (/modified|updated/i.test(el.getAttribute('class') ?? '') &&
    !/published/i.test(el.getAttribute('class') ?? ''));
/** Parts of a page that hold other articles' dates: sidebars, related links, comments. */
const ASIDE =
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
function publishedDate(doc: Doc, metas: Map<string, string>, ld: JsonLd, now: Date) {
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

// ---------------------------------------------------------------------------------------
// Headline and byline

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
  const docTitle = doc.querySelector('title')?.textContent ?? '';
  const lang = doc.documentElement?.getAttribute('lang') || null;
  // Readability is typed against the DOM library; linkedom's document is what it runs on.
  const article = new Readability(doc as never).parse();
  if (!article?.textContent) return null;
  const text = cleanText(blockText(article.content) ?? article.textContent, MAX_TEXT);
  if (text.length < 200) return null;
  const siteName = metas.get('og:site_name');
  const publisher = cleanText(article.siteName || siteName || new URL(canonical).hostname, 200);
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
  };
}
