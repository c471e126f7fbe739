import { decodeHTML } from 'entities';
import { z } from 'zod';
import { answerOf, type Connector, type ConnectorItem } from './connector.js';

/**
 * YouTube's Data API search (GET /youtube/v3/search?type=video&order=date): the newest
 * videos naming the brand across YouTube, each read as it is (its title and the start of
 * its description). Needs an API key (YOUTUBE_API_KEY, sent as X-Goog-Api-Key, never in
 * the address); a search costs 100 of the default 10,000 daily quota units, so 100
 * searches a day: one every 14.4 minutes across all brands. The search gives no counts, so
 * a video is read as news is, without a reach threshold. The cursor is the newest
 * `publishedAt` read (`publishedAfter`).
 */
export const youtubeSearch: Connector = {
  id: 'youtube-search',
  name: 'YouTube search',
  accept: 'application/json',
  perMinute: 100 / 1440,
  authorize: (key) => ({ 'x-goog-api-key': key }),
  request({ base, query, cursor }) {
    // YouTube's search reads | as OR and a leading - as NOT.
    const q = [
      query.names.map((n) => `"${n.replace(/"/g, '')}"`).join('|'),
      ...query.exclude.map((e) => `-"${e.replace(/"/g, '')}"`),
    ].join(' ');
    const since = cursor ? `&publishedAfter=${encodeURIComponent(cursor)}` : '';
    return [
      `${base}/youtube/v3/search?part=snippet&type=video&order=date&maxResults=50&q=${encodeURIComponent(q)}${since}`,
    ];
  },
  parse(body, _url, _now, cursor = null) {
    const answer = answerOf('YouTube', body, Answer);
    const items: ConnectorItem[] = [];
    let newest = cursor;
    for (const v of answer.items) {
      const id = v.id.videoId;
      if (!id) continue;
      const s = v.snippet;
      const title = decodeHTML(s.title).trim();
      const description = decodeHTML(s.description ?? '').trim();
      items.push({
        key: `yt:video:${id}`,
        url: `https://www.youtube.com/watch?v=${encodeURIComponent(id)}`,
        title,
        published_at: s.publishedAt,
        given: {
          text: description ? `${title}\n\n${description}` : title,
          publisher: `YouTube (${decodeHTML(s.channelTitle)})`,
          author: decodeHTML(s.channelTitle),
          type: 'social',
          reach: null,
        },
      });
      // The next search asks from a second after the newest read.
      const after = new Date(Date.parse(s.publishedAt) + 1000);
      if (!Number.isNaN(after.getTime()) && (!newest || after.toISOString() > newest)) {
        newest = after.toISOString();
      }
    }
    return { items, cursor: newest };
  },
};

const Answer = z.object({
  items: z.array(
    z.object({
      id: z.object({ videoId: z.string().optional() }),
      snippet: z.object({
        publishedAt: z.string(),
        title: z.string(),
        description: z.string().optional(),
        channelTitle: z.string(),
      }),
    }),
  ),
});
