import { z } from 'zod';
import { answerOf, type Connector, type ConnectorItem } from './connector.js';

/**
 * Trustpilot: the newest reviews of the brand's business unit (GET
 * /v1/business-units/<id>/reviews, ordered by creation), the unit's id named by the team
 * (Trustpilot's /v1/business-units/find?name=<domain> answers it). A review is about the
 * brand by being there, read as it is with its stars; its reach is its likes. Needs an API
 * key (TRUSTPILOT_API_KEY, sent as the `apikey` header, never in the address). No cursor
 * (items seen are skipped).
 */
export const trustpilot: Connector = {
  id: 'trustpilot',
  name: 'Trustpilot',
  accept: 'application/json',
  perMinute: 30,
  authorize: (key) => ({ apikey: key }),
  targets: {
    what: 'Trustpilot business unit id',
    pattern: /^[0-9a-f]{24}$/,
    example: '46d6a890000064000500e0c3',
  },
  request({ base, targets }) {
    return targets.map(
      (id) => `${base}/v1/business-units/${id}/reviews?orderBy=createdat.desc&perPage=100`,
    );
  },
  parse(body) {
    const answer = answerOf('Trustpilot', body, Answer);
    const items: ConnectorItem[] = [];
    for (const r of answer.reviews) {
      const text = r.text?.trim();
      if (!text) continue;
      const title = r.title?.trim() || text.slice(0, 80);
      items.push({
        key: `trustpilot:${r.id}`,
        url: `https://www.trustpilot.com/reviews/${encodeURIComponent(r.id)}`,
        title,
        published_at: r.createdAt,
        given: {
          text: `${r.stars} of 5 stars. ${title}\n\n${text}`,
          publisher: 'Trustpilot',
          author: r.consumer?.displayName ?? null,
          type: 'review',
          reach: r.numberOfLikes ?? 0,
          about: true,
        },
      });
    }
    return { items, cursor: null };
  },
};

const Answer = z.object({
  reviews: z.array(
    z.object({
      id: z.string(),
      stars: z.number().int().min(1).max(5),
      title: z.string().nullish(),
      text: z.string().nullish(),
      createdAt: z.string(),
      numberOfLikes: z.number().optional(),
      consumer: z.object({ displayName: z.string() }).partial().optional(),
    }),
  ),
});
