import { decodeHTML } from 'entities';
import { z } from 'zod';
import {
  answerOf,
  type Connector,
  type ConnectorItem,
  orQuery,
  readBack,
  walkBack,
} from './connector.js';

/**
 * Reddit's search (GET /search.json?q=…&sort=new): the newest posts naming the brand
 * across subreddits. A link post is read as the article it links to; a text post is read
 * as it is, with its score and comments as its reach. Reddit's search has no "since": the
 * cursor is the newest `created_utc` read, and older posts are dropped here; a burst larger
 * than one answer is read back through Reddit's own `after` (walkBack). No key
 * (Reddit asks for a descriptive User-Agent and limits anonymous use; its OAuth API is the
 * licensed route for volume).
 */
export const reddit: Connector = {
  id: 'reddit',
  name: 'Reddit',
  accept: 'application/json',
  perMinute: 10,
  request({ base, query, cursor }) {
    const { after } = readBack(cursor);
    return [
      `${base}/search.json?q=${encodeURIComponent(orQuery(query))}&sort=new&limit=100&t=week&raw_json=1${after ? `&after=${encodeURIComponent(after)}` : ''}`,
    ];
  },
  parse(body, _url, _now, cursor = null) {
    const listing = answerOf('Reddit', body, Listing);
    const c = readBack(cursor);
    const since = c.since ?? 0;
    const items: ConnectorItem[] = [];
    let newest: number | null = null;
    let oldest: number | null = null;
    let reached = false;
    for (const { data: p } of listing.data.children) {
      if (newest === null || p.created_utc > newest) newest = p.created_utc;
      if (oldest === null || p.created_utc < oldest) oldest = p.created_utc;
      if (p.created_utc <= since) {
        reached = true;
        continue;
      }
      const thread = `https://www.reddit.com${p.permalink}`;
      const when = new Date(p.created_utc * 1000).toISOString();
      if (
        !p.is_self &&
        p.url &&
        /^https?:\/\//i.test(p.url) &&
        !/reddit\.com|redd\.it/i.test(p.url)
      ) {
        items.push({ key: p.name, url: p.url, title: p.title, published_at: when });
      } else if (p.selftext.trim()) {
        items.push({
          key: p.name,
          url: thread,
          title: p.title,
          published_at: when,
          given: {
            text: `${p.title}\n\n${decodeHTML(p.selftext).trim()}`,
            publisher: `Reddit (r/${p.subreddit})`,
            author: p.author,
            type: 'forum',
            reach: Math.max(0, p.score) + p.num_comments,
          },
        });
      }
    }
    // Read down to what was read before, or to the end of the results: all of it came.
    const complete = reached || !listing.data.after;
    const more = listing.data.after ?? undefined;
    return {
      items,
      cursor: walkBack(c, { newest, oldest, complete, ...(more && { after: more }) }),
    };
  },
};

const Listing = z.object({
  data: z.object({
    after: z.string().nullish(),
    children: z.array(
      z.object({
        data: z.object({
          name: z.string(),
          title: z.string(),
          selftext: z.string().default(''),
          url: z.string().nullish(),
          permalink: z.string(),
          author: z.string(),
          subreddit: z.string(),
          created_utc: z.number(),
          score: z.number(),
          num_comments: z.number(),
          is_self: z.boolean(),
        }),
      }),
    ),
  }),
});
