import { z } from 'zod';
import { answerOf, type Connector, type ConnectorItem, orQuery } from './connector.js';

/**
 * X (Twitter): the API's recent search (GET /2/tweets/search/recent, the last seven days),
 * posts naming the brand, reposts left out, each read as it is with its likes, reposts,
 * replies and quotes as its reach, or a hundredth of its author's followers, and the pages
 * it links. Needs a paid plan's bearer token (X_BEARER_TOKEN); Basic allows 60 searches in
 * 15 minutes, so 4 a minute. The cursor is the newest post id read (`since_id`): the next
 * poll asks for the 100 newest after it.
 */
export const x: Connector = {
  id: 'x',
  name: 'X',
  accept: 'application/json',
  perMinute: 4,
  authorize: (key) => ({ authorization: `Bearer ${key}` }),
  request({ base, query, cursor, now }) {
    const q = encodeURIComponent(`(${orQuery(query)}) -is:retweet`);
    // Recent search refuses a since_id older than its seven days (HTTP 400): after a quiet
    // week it asks from the window's start instead.
    const windowStart = now.getTime() - 7 * 86_400_000 + 5 * 60_000;
    const since = !cursor
      ? ''
      : postTime(cursor) > windowStart
        ? `&since_id=${encodeURIComponent(cursor)}`
        : `&start_time=${encodeURIComponent(new Date(windowStart).toISOString())}`;
    return [
      `${base}/2/tweets/search/recent?query=${q}&max_results=100&tweet.fields=created_at,public_metrics,lang,entities,author_id&expansions=author_id&user.fields=username,public_metrics${since}`,
    ];
  },
  parse(body, _url, _now, cursor = null) {
    const answer = answerOf('X', body, Answer);
    const users = new Map((answer.includes?.users ?? []).map((u) => [u.id, u]));
    const items: ConnectorItem[] = [];
    for (const t of answer.data ?? []) {
      const user = users.get(t.author_id);
      if (!user) continue;
      const m = t.public_metrics;
      const engagement = m ? m.like_count + m.retweet_count + m.reply_count + m.quote_count : 0;
      items.push({
        key: `x:${t.id}`,
        url: `https://x.com/${user.username}/status/${t.id}`,
        title: t.text.slice(0, 80),
        published_at: t.created_at,
        given: {
          text: t.text,
          publisher: 'X',
          author: `@${user.username}`,
          type: 'social',
          reach: Math.max(
            engagement,
            Math.floor((user.public_metrics?.followers_count ?? 0) / 100),
          ),
          links: (t.entities?.urls ?? [])
            .map((u) => u.unwound_url ?? u.expanded_url ?? '')
            .filter((u) => /^https?:\/\//i.test(u)),
        },
      });
    }
    // No results: no `data`, and `meta.newest_id` absent; the cursor stays.
    return { items, cursor: answer.meta?.newest_id ?? cursor };
  },
};

const Answer = z.object({
  data: z
    .array(
      z.object({
        id: z.string(),
        text: z.string(),
        author_id: z.string(),
        created_at: z.string().optional(),
        public_metrics: z
          .object({
            like_count: z.number(),
            retweet_count: z.number(),
            reply_count: z.number(),
            quote_count: z.number(),
          })
          .optional(),
        entities: z
          .object({
            urls: z
              .array(
                z.object({
                  expanded_url: z.string().optional(),
                  unwound_url: z.string().optional(),
                }),
              )
              .optional(),
          })
          .optional(),
      }),
    )
    .optional(),
  includes: z
    .object({
      users: z
        .array(
          z.object({
            id: z.string(),
            username: z.string(),
            public_metrics: z.object({ followers_count: z.number() }).optional(),
          }),
        )
        .optional(),
    })
    .optional(),
  meta: z.object({ newest_id: z.string().optional() }).optional(),
});

/** When a post was made, from its id (X's ids are Snowflakes: milliseconds since 2010-11-04). */
export function postTime(id: string): number {
  try {
    return Number((BigInt(id) >> 22n) + 1288834974657n);
  } catch {
    return 0;
  }
}
