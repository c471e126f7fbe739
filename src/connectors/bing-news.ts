import { parseFeed } from '../pipeline/feed.js';
import { type Connector, orQuery } from './connector.js';

/**
 * Bing News' RSS search (bing.com/news/search?q=…&format=rss). Its links go through a
 * click-counting address (…/news/apiclick.aspx?…&url=<the article>&…): the article's own
 * URL is read from it, so the same article found by another connector is known as one.
 */
export const bingNews: Connector = {
  id: 'bing-news',
  name: 'Bing News',
  accept: 'application/rss+xml, application/xml;q=0.9, text/xml;q=0.8',
  perMinute: 30,
  request({ base, query }) {
    return [`${base}/news/search?q=${encodeURIComponent(orQuery(query))}&format=rss`];
  },
  parse(body, url, now) {
    const items = parseFeed(body, url, now).map((i) => {
      const target = articleUrl(i.url);
      return { ...i, key: target, url: target };
    });
    return { items, cursor: null };
  },
};

/** The article a click-counting link leads to, or the link itself. */
function articleUrl(link: string): string {
  try {
    const u = new URL(link);
    const target = /apiclick\.aspx$/i.test(u.pathname) ? u.searchParams.get('url') : null;
    return target && /^https?:\/\//i.test(target) ? new URL(target).toString() : link;
  } catch {
    return link;
  }
}
