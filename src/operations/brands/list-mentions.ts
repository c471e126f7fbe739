import { z } from 'zod';
import { listMentionPage } from '../../domain/brand-mentions.js';
import { recentSpikes } from '../../domain/mention-spikes.js';
import { readableBrandIds } from '../../domain/stories.js';
import { SENTIMENT_BANDS } from '../../domain/story-search.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, Cursor, Limit, SourceType } from '../schemas.js';

/**
 * Every mention of a brand, as found (issue 43, docs/api.md): an addition beside the spec's
 * operations, free on every plan on every door (the paywall stays on the advisory).
 */
export const listMentions = defineOperation({
  id: 'list_mentions',
  summary: 'List the mentions of a brand',
  description:
    'Sources found naming the brand (or each of your brands), newest first: where each came from, its tone, the sentence naming the brand, its story. Free on every plan. Pass next_cursor back as cursor.',
  input: z.object({
    brand: BrandHost.optional().describe(
      'Brand host, e.g. acme.com; without it, every brand you read',
    ),
    type: SourceType.optional().describe('Only this source type'),
    language: z
      .string()
      .max(2, 'must be an ISO 639-1 code such as en')
      .regex(/^[a-z]{2}$/, 'must be an ISO 639-1 code such as en')
      .optional()
      .describe('Only this language, ISO 639-1 (e.g. en)'),
    sentiment: z
      .enum(SENTIMENT_BANDS)
      .optional()
      .describe('Only this tone toward the brand (below -0.2, between, above 0.2)'),
    limit: Limit,
    cursor: Cursor,
  }),
  output: z.object({
    brand: z.string().nullable(),
    mentions: z.array(
      z.object({
        brand: z.string(),
        url: z.string(),
        title: z.string(),
        publisher: z.string(),
        author: z.string().nullable().describe('who wrote a post or review; null for a page'),
        type: z.string(),
        language: z.string().nullable(),
        published_at: z.string(),
        found_at: z.string(),
        sentiment: z.number().nullable(),
        sentence: z.string().nullable(),
        event_uri: z
          .string()
          .nullable()
          .describe('its story; null for a post with too little reach to make one alone'),
      }),
    ),
    next_cursor: z.string().nullable().describe('cursor of the next page, or null on the last'),
    spikes: z
      .array(
        z.object({
          brand: z.string(),
          mentions: z.number().int(),
          usual: z.number(),
          at: z.string(),
        }),
      )
      .describe('spikes told in the last hour: mentions in an hour against the usual'),
  }),
  access: {},
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  async handler({ app, actor }, input) {
    const ids = input.brand
      ? [(await brandFor(app, actor, input.brand)).brand.id]
      : await readableBrandIds(app.db, actor.accountId, actor.scope);
    const page = await listMentionPage(
      app.db,
      ids,
      { type: input.type, language: input.language, sentiment: input.sentiment },
      input.limit,
      input.cursor,
    );
    return {
      brand: input.brand ?? null,
      mentions: page.rows,
      next_cursor: page.nextCursor,
      spikes: await recentSpikes(app, ids),
    };
  },
  rest: { method: 'GET', path: '/v1/mentions' },
  portal: true,
});
