import { z } from 'zod';
import { answerOf, type Connector, type ConnectorItem } from './connector.js';

/**
 * The App Store's customer-review feeds (itunes.apple.com/<country>/rss/customerreviews/
 * page=1/id=<app id>/sortby=mostrecent/json): the 50 newest reviews of each of the brand's
 * apps the team names ("284882215", or "gb:284882215" for the UK store; the US store
 * otherwise). A review is about the brand by being there, read as it is, its stars in its
 * text; its reach is the votes others gave it. No key; no cursor (items seen are skipped).
 */
export const appStore: Connector = {
  id: 'app-store',
  name: 'App Store reviews',
  accept: 'application/json',
  perMinute: 20,
  targets: {
    what: 'App Store app id',
    pattern: /^(?:[a-z]{2}:)?\d{5,12}$/,
    example: '284882215 or gb:284882215',
  },
  request({ base, targets }) {
    return targets.map((target) => {
      const [country, id] = target.includes(':') ? target.split(':') : ['us', target];
      return `${base}/${country}/rss/customerreviews/page=1/id=${id}/sortby=mostrecent/json`;
    });
  },
  parse(body, url) {
    const answer = answerOf('The App Store', body, Answer);
    const country = /\/([a-z]{2})\/rss\//.exec(url)?.[1] ?? 'us';
    const app = /\/id=(\d+)\//.exec(url)?.[1] ?? '';
    // One review is an object, not a list; an app with none has no `entry`. Older feeds
    // led with the app itself (its `im:name`, no rating): not a review.
    const entries = answer.feed.entry === undefined ? [] : [answer.feed.entry].flat();
    const items: ConnectorItem[] = [];
    for (const e of entries) {
      const rating = Number(e['im:rating']?.label);
      const id = e.id?.label;
      const content = e.content?.label?.trim();
      if (!id || !content || !(rating >= 1 && rating <= 5)) continue;
      const title = e.title?.label?.trim() || content.slice(0, 80);
      items.push({
        key: `app-store:${id}`,
        // The app's reviews page, the review named: each review is a source of its own.
        url: `https://apps.apple.com/${country}/app/id${app}?see-all=reviews#review-${encodeURIComponent(id)}`,
        title,
        published_at: e.updated?.label,
        given: {
          text: `${rating} of 5 stars. ${title}\n\n${content}`,
          publisher: `App Store (${country.toUpperCase()})`,
          author: e.author?.name?.label ?? null,
          type: 'review',
          reach: Number(e['im:voteCount']?.label ?? 0) || 0,
          about: true,
        },
      });
    }
    return { items, cursor: null };
  },
};

const Label = z.object({ label: z.string() });
const Answer = z.object({
  feed: z.object({
    entry: z
      .union([
        z.array(z.looseObject({})).transform((a) => a.map(parseEntry)),
        z.looseObject({}).transform(parseEntry),
      ])
      .optional(),
  }),
});

const Entry = z.object({
  id: Label.optional(),
  title: Label.optional(),
  content: Label.optional(),
  updated: Label.optional(),
  author: z.object({ name: Label.optional() }).optional(),
  'im:rating': Label.optional(),
  'im:voteCount': Label.optional(),
});

/** An entry in the shape read, or an empty one (the app's own entry, a changed one). */
function parseEntry(raw: unknown): z.infer<typeof Entry> {
  const parsed = Entry.safeParse(raw);
  return parsed.success ? parsed.data : {};
}
