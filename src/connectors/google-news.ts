import { parseFeed } from '../pipeline/feed.js';
import { type Connector, orQuery } from './connector.js';

/**
 * Google News' RSS search (news.google.com/rss/search?q=…): the newest articles matching
 * the brand's names. Its links (news.google.com/rss/articles/CBMi…) do not lead to the
 * publisher's page by redirect (a script does, in a browser), and the only way to the
 * article's address is an undocumented Google call this service does not make: an item is
 * read as its headline, "Headline - Publisher", with the link as its source. The same
 * article found with its page by another connector is known by its headline. No key; no
 * cursor (the feed is a window on recent news: items seen are skipped).
 */
export const googleNews: Connector = {
  id: 'google-news',
  name: 'Google News',
  accept: 'application/rss+xml, application/xml;q=0.9, text/xml;q=0.8',
  perMinute: 30,
  request({ base, query }) {
    const q = encodeURIComponent(orQuery(query));
    return [`${base}/rss/search?q=${q}&hl=en-US&gl=US&ceid=US:en`];
  },
  parse(body, url, now) {
    const items = parseFeed(body, url, now).map((i) => {
      const cut = i.title.lastIndexOf(' - ');
      const headline = cut > 0 ? i.title.slice(0, cut).trim() : i.title;
      const publisher = cut > 0 ? i.title.slice(cut + 3).trim() : 'Google News';
      return {
        ...i,
        title: headline,
        given: { text: headline, publisher, author: null, type: 'news' as const, reach: null },
      };
    });
    return { items, cursor: null };
  },
};
