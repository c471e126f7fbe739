import type { AppContext } from '../context.js';
import { invalid } from '../errors.js';
import { dispatcherFor, FetchRefused, safeFetch } from '../net/safe-fetch.js';
import { decodeBody } from '../pipeline/charset.js';
import { parseFeed } from '../pipeline/feed.js';

/**
 * The feeds a site offers (docs/sources.md, "Finding a site's feeds"; issue 43): those its
 * page announces (`<link rel="alternate" type="application/rss+xml|atom+xml">`), then
 * those at the paths sites commonly use, and the news sitemaps its robots.txt lists (else
 * those at their common paths), each kept only if it reads as a feed. Every request goes
 * to public hosts only, as any URL the service fetches.
 */
export interface FoundFeed {
  url: string;
  title: string;
  /** How it was found: announced by the page, at a common path, or a news sitemap. */
  via: 'announced' | 'common path' | 'news sitemap';
  items: number;
}

/** Paths feeds commonly live at, newsrooms' included. */
const COMMON_PATHS = [
  '/feed',
  '/rss',
  '/rss.xml',
  '/feed.xml',
  '/atom.xml',
  '/index.xml',
  '/news/feed',
  '/news/rss',
  '/press/feed',
  '/newsroom/feed',
  '/blog/feed',
];
/** Where news sitemaps commonly are, when robots.txt lists none. */
const NEWS_SITEMAP_PATHS = [
  '/news-sitemap.xml',
  '/sitemap-news.xml',
  '/sitemap_news.xml',
  '/news_sitemap.xml',
];
/** At most this many news sitemaps robots.txt lists are tried. */
const MAX_SITEMAPS = 5;
/** A page or a feed read here is small; a larger answer is not one. */
const LIMITS = { maxBytes: 2 * 1024 * 1024, timeoutMs: 10_000 };
/** How long one search may take in all. */
const SEARCH_MS = 30_000;
/** At most this many announced feeds are tried. */
const MAX_ANNOUNCED = 10;

const ALTERNATE = /<link\b[^>]*>/gi;
const attr = (tag: string, name: string) =>
  new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, 'i').exec(tag)?.slice(1).find(Boolean);

export async function discoverFeeds(app: AppContext, rawUrl: string): Promise<FoundFeed[]> {
  let site: URL;
  try {
    site = new URL(/^https?:\/\//i.test(rawUrl) ? rawUrl : `https://${rawUrl}`);
  } catch {
    throw invalid('url: must be a site address such as https://example.com/');
  }
  try {
    dispatcherFor(app.config, site);
  } catch (e) {
    if (e instanceof FetchRefused) throw invalid(`url: ${e.message}`);
    throw e;
  }
  const now = app.clock.now();
  const found = new Map<string, FoundFeed>();
  // One search takes half a minute at most, however slow the site: what is found by then.
  const deadline = now.getTime() + SEARCH_MS;
  const tryFeed = async (url: string, via: FoundFeed['via']) => {
    if (found.has(url) || Date.now() > deadline) return;
    try {
      const res = await safeFetch(app.config, url, {
        headers: { accept: 'application/rss+xml, application/atom+xml, application/xml;q=0.9' },
        limits: LIMITS,
      });
      if (res.status !== 200) return;
      const xml = decodeBody(res.body, res.headers.get('content-type'), 'xml').text;
      const items = parseFeed(xml, res.url, now);
      // A feed's title, or a news sitemap's publication name.
      const title =
        /<(?:title|news:name)[^>]*>([^<]{1,200})<\/(?:title|news:name)>/i.exec(xml)?.[1]?.trim() ??
        res.url;
      if (!found.has(res.url))
        found.set(res.url, { url: res.url, title, via, items: items.length });
    } catch {
      // Not reachable, or not a feed: not offered.
    }
  };

  // The page's own announcements first.
  try {
    const page = await safeFetch(app.config, site.toString(), { limits: LIMITS });
    if (page.status === 200) {
      const html = decodeBody(page.body, page.headers.get('content-type'), 'html').text;
      const announced = [...html.matchAll(ALTERNATE)]
        .map((m) => m[0])
        .filter(
          (tag) =>
            /\brel\s*=\s*["']?alternate/i.test(tag) &&
            /application\/(?:rss|atom)\+xml/i.test(attr(tag, 'type') ?? ''),
        )
        .map((tag) => attr(tag, 'href'))
        .filter((href): href is string => Boolean(href))
        .slice(0, MAX_ANNOUNCED);
      for (const href of announced) {
        // An href that is no address is passed over, not an error of ours.
        const url = URL.canParse(href, page.url) ? new URL(href, page.url) : null;
        if (url && (url.protocol === 'http:' || url.protocol === 'https:')) {
          await tryFeed(url.toString(), 'announced');
        }
      }
    }
  } catch (e) {
    if (!(e instanceof FetchRefused)) throw e;
    throw invalid(`url: ${e.message}`);
  }
  // Then the common paths, under the address given (a newsroom's folder) and at the
  // site's root.
  if (found.size === 0) {
    const bases = [...new Set([new URL('./', site).toString(), `${site.origin}/`])];
    for (const base of bases) {
      for (const path of COMMON_PATHS) {
        await tryFeed(new URL(path.slice(1), base).toString(), 'common path');
      }
      if (found.size > 0) break;
    }
  }
  // A publisher's news sitemap: its articles of the last two days, read as a feed.
  const listed = await sitemapsListed(app, site.origin);
  for (const url of listed.length > 0 ? listed : NEWS_SITEMAP_PATHS.map((p) => site.origin + p)) {
    await tryFeed(url, 'news sitemap');
  }
  return [...found.values()];
}

/** The news sitemaps a site's robots.txt lists (`Sitemap:` lines naming news). */
async function sitemapsListed(app: AppContext, origin: string): Promise<string[]> {
  try {
    const res = await safeFetch(app.config, `${origin}/robots.txt`, { limits: LIMITS });
    if (res.status !== 200) return [];
    return [...res.body.toString('utf8').matchAll(/^\s*sitemap:\s*(\S+)/gim)]
      .map((m) => m[1]!)
      .filter((u) => /news/i.test(u) && URL.canParse(u) && /^https?:/i.test(u))
      .slice(0, MAX_SITEMAPS);
  } catch {
    return [];
  }
}
