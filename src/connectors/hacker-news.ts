import { decodeHTML } from 'entities';
import { z } from 'zod';
import { answerOf, type Connector, type ConnectorItem, readBack, walkBack } from './connector.js';

/**
 * Hacker News through its Algolia search API (hn.algolia.com/api/v1/search_by_date): the
 * newest stories naming the brand. A story linking an article is read as that article; a
 * text post (Ask HN) is read as it is, with its points and comments as its reach. The
 * search answers newest first: the cursor is the newest `created_at_i` read, and a burst
 * larger than one answer is read back from its oldest down to it (walkBack). No key.
 */
export const hackerNews: Connector = {
  id: 'hacker-news',
  name: 'Hacker News',
  accept: 'application/json',
  perMinute: 30,
  request({ base, query, cursor }) {
    const c = readBack(cursor);
    const filters = [
      ...(c.since !== null ? [`created_at_i>${c.since}`] : []),
      // At or before the oldest read: others of that second may not have fitted.
      ...(c.until !== undefined ? [`created_at_i<=${c.until}`] : []),
    ];
    const since = filters.length ? `&numericFilters=${encodeURIComponent(filters.join(','))}` : '';
    // One query: Algolia has no OR; the name is what people write.
    return [
      `${base}/api/v1/search_by_date?query=${encodeURIComponent(query.names[0] ?? '')}&tags=story&hitsPerPage=50${since}`,
    ];
  },
  parse(body, _url, _now, cursor = null) {
    const answer = answerOf('Hacker News search', body, Answer);
    const items: ConnectorItem[] = [];
    let newest: number | null = null;
    let oldest: number | null = null;
    for (const hit of answer.hits) {
      if (newest === null || hit.created_at_i > newest) newest = hit.created_at_i;
      if (oldest === null || hit.created_at_i < oldest) oldest = hit.created_at_i;
      const thread = `https://news.ycombinator.com/item?id=${hit.objectID}`;
      const when = new Date(hit.created_at_i * 1000).toISOString();
      if (hit.url && /^https?:\/\//i.test(hit.url)) {
        items.push({
          key: hit.objectID,
          url: hit.url,
          title: hit.title ?? undefined,
          published_at: when,
        });
      } else if (hit.story_text) {
        items.push({
          key: hit.objectID,
          url: thread,
          title: hit.title ?? undefined,
          published_at: when,
          given: {
            text: textOf(hit.story_text),
            publisher: 'Hacker News',
            author: hit.author ?? null,
            type: 'forum',
            reach: (hit.points ?? 0) + (hit.num_comments ?? 0),
          },
        });
      }
    }
    // Everything asked for came in this answer, or a page's worth of newer ones is left.
    const complete = (answer.nbHits ?? answer.hits.length) <= answer.hits.length;
    return { items, cursor: walkBack(readBack(cursor), { newest, oldest, complete }) };
  },
};

const Answer = z.object({
  hits: z.array(
    z.object({
      objectID: z.string(),
      created_at_i: z.number(),
      title: z.string().nullish(),
      url: z.string().nullish(),
      author: z.string().nullish(),
      story_text: z.string().nullish(),
      points: z.number().nullish(),
      num_comments: z.number().nullish(),
    }),
  ),
  nbHits: z.number().optional(),
});

/** A post's HTML (paragraphs, links, entities) as plain text. */
function textOf(html: string): string {
  return decodeHTML(html.replace(/<p>/gi, '\n\n').replace(/<[^>]+>/g, '')).trim();
}
