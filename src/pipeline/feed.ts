import { XMLParser } from 'fast-xml-parser';
import { parseFeedDate } from './feed-date.js';

/** One entry of an RSS or Atom feed: what it links to and how we remember it. */
export interface FeedItem {
  /** The guid (RSS) or id (Atom), else the link as written: what tells us we have read it before. */
  key: string;
  url: string;
  title: string;
  /** A date (YYYY-MM-DD, UTC) when the feed gives one that can be read (see feed-date.ts). */
  published_at?: string;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  // Element and attribute names are kept as written (atom:link, dc:title, xml:base) and
  // resolved against the xmlns declarations in scope below.
  removeNSPrefix: false,
  preserveOrder: true,
  // Text stays text: a guid 0042 is not the number 42.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  // XML's own entities and numeric references (&#8217;) are decoded; documents that
  // declare entities of their own are refused before parsing (parseFeed).
  processEntities: true,
  htmlEntities: true,
});

const NS = {
  xml: 'http://www.w3.org/XML/1998/namespace',
  atom: 'http://www.w3.org/2005/Atom',
  atom03: 'http://purl.org/atom/ns#',
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rss10: 'http://purl.org/rss/1.0/',
  rss090: 'http://my.netscape.com/rdf/simple/0.9/',
  dc: 'http://purl.org/dc/elements/1.1/',
  dcterms: 'http://purl.org/dc/terms/',
  sitemap: 'http://www.sitemaps.org/schemas/sitemap/0.9',
  news: 'http://www.google.com/schemas/sitemap-news/0.9',
};
/** Prefixes feeds use without declaring them, read as they are always meant. */
const UNDECLARED: Record<string, string> = {
  xml: NS.xml,
  atom: NS.atom,
  atom10: NS.atom,
  dc: NS.dc,
  dcterms: NS.dcterms,
  rdf: NS.rdf,
};
/** The namespaces RSS's own elements come in: none (RSS 0.9x, 2.0), RSS 1.0, RSS 0.90, Userland's. */
const RSS_NS = [
  '',
  NS.rss10,
  NS.rss090,
  'http://backend.userland.com/rss2',
  'http://backend.userland.com/rss',
  'http://blogs.law.harvard.edu/tech/rss',
];

/** An element with its namespace resolved and the base URI (xml:base) in force on it. */
interface El {
  ns: string;
  local: string;
  attrs: { ns: string; local: string; value: string }[];
  children: (El | string)[];
  base: string;
}

type Raw = Record<string, unknown>;

const nameOf = (node: Raw) => Object.keys(node).find((k) => k !== ':@');

function split(qname: string): [prefix: string, local: string] {
  const i = qname.indexOf(':');
  return i < 0 ? ['', qname] : [qname.slice(0, i), qname.slice(i + 1)];
}

/** An http(s) URL for href resolved against base; undefined otherwise. */
function absolute(href: string, base: string): string | undefined {
  // An empty href would resolve to the base itself.
  if (!href) return undefined;
  try {
    const u = new URL(href, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : undefined;
  } catch {
    return undefined;
  }
}

/** The element for a parsed node, its names resolved in the scope of its parent. */
function build(node: Raw, name: string, scope: Map<string, string>, base: string): El {
  const raw = (node[':@'] ?? {}) as Record<string, unknown>;
  let names = scope;
  for (const [k, v] of Object.entries(raw)) {
    if (k !== 'xmlns' && !k.startsWith('xmlns:')) continue;
    if (names === scope) names = new Map(scope);
    names.set(k === 'xmlns' ? '' : k.slice(6), String(v).trim());
  }
  const resolve = (prefix: string, isAttr: boolean) => {
    // Unprefixed attributes are in no namespace; unprefixed elements in the default one.
    if (!prefix) return isAttr ? '' : (names.get('') ?? '');
    return names.get(prefix) ?? UNDECLARED[prefix] ?? `urn:x-undeclared-prefix:${prefix}`;
  };
  const attrs: El['attrs'] = [];
  for (const [k, v] of Object.entries(raw)) {
    if (k === 'xmlns' || k.startsWith('xmlns:')) continue;
    const [prefix, local] = split(k);
    attrs.push({ ns: resolve(prefix, true), local, value: String(v) });
  }
  // xml:base is resolved against the base in force (in the end, the feed's URL); one
  // that does not give an http(s) URL is ignored.
  const xmlBase = attrs.find((a) => a.ns === NS.xml && a.local === 'base')?.value.trim();
  const ownBase = (xmlBase && absolute(xmlBase, base)) || base;
  const [prefix, local] = split(name);
  const children: El['children'] = [];
  for (const child of (node[name] ?? []) as Raw[]) {
    const n = nameOf(child);
    if (n === '#text') children.push(String(child[n]));
    else if (n && !n.startsWith('?') && !n.startsWith('!')) {
      children.push(build(child, n, names, ownBase));
    }
  }
  return { ns: resolve(prefix, false), local, attrs, children, base: ownBase };
}

const isEl = (c: El | string): c is El => typeof c !== 'string';

/** The child elements named local in one of the namespaces. */
const childrenNamed = (el: El, local: string, ns: readonly string[]) =>
  el.children.filter(isEl).filter((c) => c.local === local && ns.includes(c.ns));

const attr = (el: El, local: string, ns = '') =>
  el.attrs.find((a) => a.local === local && a.ns === ns)?.value;

/** All the text in an element (an XHTML title's too), trimmed. */
const textOf = (el: El): string => {
  const parts: string[] = [];
  const walk = (e: El) => {
    for (const c of e.children) {
      if (isEl(c)) walk(c);
      else parts.push(c);
    }
  };
  walk(el);
  return parts.join('').trim();
};

/** The text of the first of these elements that has any. */
function firstText(el: El, names: [local: string, ns: readonly string[]][]): string {
  for (const [local, ns] of names) {
    for (const c of childrenNamed(el, local, ns)) {
      const t = textOf(c);
      if (t) return t;
    }
  }
  return '';
}

/** A link as written and the base it is resolved against. */
interface Link {
  href: string;
  base: string;
}

const IANA_REL = 'http://www.iana.org/assignments/relation/';
const HTML_TYPES = ['text/html', 'application/xhtml+xml'];

/**
 * The alternate links among Atom link elements (no rel means alternate; the IANA IRI form
 * counts too), those of an HTML type (or none) first; self, enclosure, replies, edit,
 * related and via are not the entry's page.
 */
function alternates(links: El[]): Link[] {
  const alt = links.filter((l) => {
    const rel = (attr(l, 'rel') ?? '').trim().toLowerCase();
    return rel === '' || rel === 'alternate' || rel === `${IANA_REL}alternate`;
  });
  const html = (l: El) => {
    const type = (attr(l, 'type') ?? '').split(';')[0]!.trim().toLowerCase();
    return type === '' || HTML_TYPES.includes(type);
  };
  return [...alt.filter(html), ...alt.filter((l) => !html(l))].map((l) => ({
    href: (attr(l, 'href') ?? '').trim(),
    base: l.base,
  }));
}

type Names = [local: string, ns: readonly string[]][];

interface Candidate {
  key: string;
  links: Link[];
  title: string;
  dates: string[];
}

function rssItem(item: El, rss: readonly string[]): Candidate {
  const atom = [NS.atom, NS.atom03];
  const links: Link[] = [];
  // RSS's own <link> wins (its text; an href from feeds that write it Atom's way).
  for (const l of childrenNamed(item, 'link', rss)) {
    links.push({ href: textOf(l) || (attr(l, 'href') ?? '').trim(), base: l.base });
  }
  // Then atom:link, only as the item's alternate.
  links.push(...alternates(childrenNamed(item, 'link', atom)));
  // Then a guid that is a permalink: said so, or (isPermaLink defaults to true) an http(s) URL.
  const guids = childrenNamed(item, 'guid', rss);
  for (const g of guids) {
    const permalink = (attr(g, 'isPermaLink') ?? '').trim().toLowerCase();
    const href = textOf(g);
    if (permalink === 'true' || (permalink !== 'false' && /^https?:\/\//i.test(href))) {
      links.push({ href, base: g.base });
    }
  }
  // RSS 1.0 names the item by its URL.
  const about = attr(item, 'about', NS.rdf)?.trim();
  if (about) links.push({ href: about, base: item.base });
  const dates: Names = [
    ['pubDate', rss],
    ['pubdate', rss],
    ['date', [NS.dc]],
    ['issued', [NS.dcterms]],
    ['created', [NS.dcterms]],
    ['date', [NS.dcterms]],
    ['published', atom],
    ['updated', atom],
    ['modified', [NS.dcterms]],
  ];
  return {
    key: guids.map(textOf).find(Boolean) ?? '',
    links,
    title: firstText(item, [
      ['title', rss],
      ['title', [NS.dc]],
      ['title', [NS.dcterms]],
    ]),
    dates: dates.flatMap(([local, ns]) => childrenNamed(item, local, ns).map(textOf)),
  };
}

/**
 * A news sitemap's entry (Google's sitemap-news 0.9): its `loc`, and the `news:title` and
 * `news:publication_date` of its `news:news`; an entry without `news:news` (a plain
 * sitemap's page) is none.
 */
function newsEntry(url: El): Candidate | null {
  const news = childrenNamed(url, 'news', [NS.news])[0];
  const loc = firstText(url, [['loc', [NS.sitemap]]]);
  if (!news || !loc) return null;
  return {
    key: loc,
    links: [{ href: loc, base: url.base }],
    title: firstText(news, [['title', [NS.news]]]),
    dates: childrenNamed(news, 'publication_date', [NS.news]).map(textOf),
  };
}

function atomEntry(entry: El, atom: readonly string[]): Candidate {
  const dates: Names = [
    ['published', atom],
    ['issued', atom],
    ['created', atom],
    ['date', [NS.dc]],
    ['issued', [NS.dcterms]],
    ['created', [NS.dcterms]],
    ['updated', atom],
    ['modified', atom],
    ['modified', [NS.dcterms]],
  ];
  return {
    key: firstText(entry, [['id', atom]]),
    links: alternates(childrenNamed(entry, 'link', atom)),
    title: firstText(entry, [
      ['title', atom],
      ['title', [NS.dc]],
      ['title', [NS.dcterms]],
    ]),
    dates: dates.flatMap(([local, ns]) => childrenNamed(entry, local, ns).map(textOf)),
  };
}

/**
 * The items of an RSS 2.0, RSS 1.0 (RDF), RSS 0.9x or Atom (1.0, 0.3) feed, in the feed's
 * order. Links are resolved against xml:base and then the feed's URL; items without a
 * usable http(s) link are left out. Dates are read as of `fetchedAt`, when the feed was
 * fetched. Throws when the text is not a feed.
 */
export function parseFeed(xml: string, feedUrl: string, fetchedAt: Date): FeedItem[] {
  // Feeds have no use for entity declarations; refusing them rules out expansion bombs.
  if (/<!ENTITY/i.test(xml)) throw new Error('not a feed: entity declarations are refused');
  let doc: Raw[];
  try {
    doc = parser.parse(xml) as Raw[];
  } catch (e) {
    throw new Error(`not a feed: ${(e as Error).message}`);
  }
  const top = doc.find((n) => {
    const name = nameOf(n);
    return name && name !== '#text' && !name.startsWith('?') && !name.startsWith('!');
  });
  const root = top && build(top, nameOf(top)!, new Map(), feedUrl);
  const candidates: Candidate[] = [];
  if (root && (root.local === 'rss' || root.local === 'RDF')) {
    const rss = root.local === 'rss' ? [...RSS_NS, root.ns] : RSS_NS;
    // Items in the channel (RSS 0.9x, 2.0) or beside it (RSS 1.0), in document order.
    for (const c of root.children.filter(isEl)) {
      if (!rss.includes(c.ns)) continue;
      if (c.local === 'item') candidates.push(rssItem(c, rss));
      else if (c.local === 'channel') {
        for (const item of childrenNamed(c, 'item', rss)) candidates.push(rssItem(item, rss));
      }
    }
  } else if (root && root.local === 'feed') {
    const atom = [NS.atom, NS.atom03, root.ns];
    for (const entry of childrenNamed(root, 'entry', atom)) candidates.push(atomEntry(entry, atom));
  } else if (root && root.local === 'urlset' && root.ns === NS.sitemap) {
    // A news sitemap is a publisher's feed of its last two days; a plain sitemap (every
    // page of a site) is not one.
    const entries = childrenNamed(root, 'url', [NS.sitemap]).map(newsEntry);
    if (entries.length > 0 && entries.every((e) => e === null)) {
      throw new Error('not a feed: a sitemap without news entries');
    }
    for (const e of entries) if (e) candidates.push(e);
  } else {
    throw new Error('not a feed: neither RSS nor Atom nor a news sitemap');
  }
  const items: FeedItem[] = [];
  for (const c of candidates) {
    let link: Link | undefined;
    let url: string | undefined;
    for (const l of c.links) {
      url = absolute(l.href, l.base);
      if (url) {
        link = l;
        break;
      }
    }
    if (!link || !url) continue;
    let published: string | undefined;
    for (const d of c.dates) {
      const at = parseFeedDate(d, fetchedAt);
      if (at) {
        published = at.toISOString().slice(0, 10);
        break;
      }
    }
    items.push({
      key: (c.key || link.href).slice(0, 500),
      url,
      title: c.title,
      ...(published && { published_at: published }),
    });
  }
  return items;
}
