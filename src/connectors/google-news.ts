import { parseFeed } from '../pipeline/feed.js';
import { type Connector, orQuery } from './connector.js';

/**
 * Google News' RSS search (news.google.com/rss/search?q=…): the newest articles matching
 * the brand's names, as an RSS 2.0 feed whose links lead, by redirect, to the publisher's
 * page. No key; no cursor (the feed is a window on recent news: items seen are skipped).
 */
export const googleNews: Connector = {
  id: 'google-news',
  name: 'Google News',
  accept: 'application/rss+xml, application/xml;q=0.9, text/xml;q=0.8',
  request(base, query) {
    const q = encodeURIComponent(orQuery(query));
    return `${base}/rss/search?q=${q}&hl=en-US&gl=US&ceid=US:en`;
  },
  parse(body, url, now) {
    return { items: parseFeed(body, url, now).map((i) => ({ ...i })), cursor: null };
  },
};
