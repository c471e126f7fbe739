import { XMLParser } from 'fast-xml-parser';

/** One entry of an RSS or Atom feed: what it links to and how we remember it. */
export interface FeedItem {
  /** The guid (RSS) or id (Atom), else the link: what tells us we have read it before. */
  key: string;
  url: string;
  title: string;
  /** A date (YYYY-MM-DD) when the feed gives one. */
  published_at?: string;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  // XML's own entities and numeric references (&#8217;) are decoded; documents that
  // declare entities of their own are refused before parsing (parseFeed).
  processEntities: true,
  htmlEntities: true,
  isArray: (name) => ['item', 'entry', 'link'].includes(name),
});

const text = (v: unknown): string => {
  if (typeof v === 'string' || typeof v === 'number') return String(v).trim();
  if (v && typeof v === 'object' && '#text' in v) return text((v as { '#text': unknown })['#text']);
  return '';
};

const day = (v: unknown): string | undefined => {
  const t = Date.parse(text(v));
  return Number.isNaN(t) ? undefined : new Date(t).toISOString().slice(0, 10);
};

/** An absolute http(s) URL, resolved against the feed's own URL; undefined otherwise. */
function absolute(href: string, base: string): string | undefined {
  // An empty href would resolve to the feed itself.
  if (!href) return undefined;
  try {
    const u = new URL(href, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : undefined;
  } catch {
    return undefined;
  }
}

type Node = Record<string, unknown>;

/** The alternate link of an Atom entry (or the first link without a rel). */
function atomLink(entry: Node): string {
  const links = (entry.link as Node[] | undefined) ?? [];
  const alt = links.find((l) => !l['@rel'] || l['@rel'] === 'alternate');
  return alt ? text(alt['@href']) : '';
}

/**
 * The items of an RSS 2.0, RSS 1.0 (RDF) or Atom feed, in the feed's order. Items
 * without a usable http(s) link are left out. Throws when the text is not a feed.
 */
export function parseFeed(xml: string, feedUrl: string): FeedItem[] {
  // Feeds have no use for entity declarations; refusing them rules out expansion bombs.
  if (/<!ENTITY/i.test(xml)) throw new Error('not a feed: entity declarations are refused');
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch (e) {
    throw new Error(`not a feed: ${(e as Error).message}`);
  }
  const rss = doc.rss as Node | undefined;
  const rdf = doc.RDF as Node | undefined;
  const atom = doc.feed as Node | undefined;
  const raw: { key: string; link: string; title: string; date: unknown }[] = [];
  if (rss || rdf) {
    const items = ((rss?.channel as Node | undefined)?.item ?? rdf?.item ?? []) as Node[];
    for (const it of items) {
      const link = text((it.link as unknown[] | undefined)?.[0]) || text(it['@about']);
      raw.push({
        key: text(it.guid) || link,
        link,
        title: text(it.title),
        date: it.pubDate ?? it.date ?? it.published,
      });
    }
  } else if (atom) {
    for (const e of (atom.entry ?? []) as Node[]) {
      const link = atomLink(e);
      raw.push({
        key: text(e.id) || link,
        link,
        title: text(e.title),
        date: e.published ?? e.updated,
      });
    }
  } else {
    throw new Error('not a feed: neither RSS nor Atom');
  }
  const items: FeedItem[] = [];
  for (const r of raw) {
    const url = absolute(r.link, feedUrl);
    if (!url) continue;
    const key = r.key || url;
    const published = day(r.date);
    items.push({
      key: key.slice(0, 500),
      url,
      title: r.title,
      ...(published && { published_at: published }),
    });
  }
  return items;
}
