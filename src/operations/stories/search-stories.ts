import { z } from 'zod';
import { userIdByEmail } from '../../domain/accounts.js';
import { listRecentStories as listRecent, readableBrandIds } from '../../domain/stories.js';
import { SENTIMENT_BANDS } from '../../domain/story-search.js';
import { invalid } from '../../errors.js';
import { TOPICS } from '../../pipeline/taxonomy.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, BrandId, Cursor, Limit, Severity, StoryStatus } from '../schemas.js';
import { StoryRowWithState } from '../shapes.js';

/** A comma-separated list of an enum's values in a query string, e.g. `high,critical`. */
const listOf = <T extends Readonly<Record<string, string>>>(values: z.ZodEnum<T>) =>
  z
    .string()
    .max(200, 'must be at most 200 characters')
    .transform((s) => [...new Set(s.split(',').map((v) => v.trim()))].filter(Boolean))
    .pipe(
      z.array(values, `must be a comma-separated list of: ${values.options.join(', ')}`).max(10),
    )
    .optional();

const Day = z
  .string()
  .max(10, 'must be a date, YYYY-MM-DD')
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD')
  .refine(
    (d) =>
      !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) &&
      new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
    'must be a real date, YYYY-MM-DD',
  );

const Topic = z.enum(TOPICS.map((t) => t.tag) as [string, ...string[]]);

/** The search's own fields; the brand is named as each door names it. */
const searchFields = {
  q: z
    .string()
    .max(200, 'must be at most 200 characters')
    .optional()
    .describe(
      'Words to find in titles, executive summaries and (unlocked stories only) sources; every word must appear, as a word or the start of one; accents and case do not matter',
    ),
  severity: listOf(Severity).describe('Only these severities, comma-separated: e.g. high,critical'),
  status: listOf(StoryStatus).describe('Only these statuses, comma-separated: e.g. new,assigned'),
  from: Day.optional().describe('Detected on or after this day (UTC), YYYY-MM-DD'),
  to: Day.optional().describe('Detected on or before this day (UTC), YYYY-MM-DD'),
  topic: Topic.optional().describe('Only stories with this topic tag, e.g. product-safety'),
  sentiment: z
    .enum(SENTIMENT_BANDS)
    .optional()
    .describe(
      "Mean sentiment of the story's scored sources: negative (below -0.2), neutral, positive (above 0.2)",
    ),
  language: z
    .string()
    .max(2, 'must be an ISO 639-1 code such as en')
    .regex(/^[a-z]{2}$/, 'must be an ISO 639-1 code such as en')
    .optional()
    .describe("Main language of the story's sources, ISO 639-1 (e.g. en, fr)"),
  assignee: z
    .string()
    .max(254, 'must be at most 254 characters')
    .optional()
    .describe(
      'Assigned to this email; "nobody" for unassigned stories; "me" for yourself (people only)',
    ),
  limit: Limit,
  cursor: Cursor,
};

const Row = StoryRowWithState.extend({ brand: z.string().describe('brand host') });

export const searchStories = defineOperation({
  id: 'search_stories',
  summary: 'Search stories',
  description:
    "Stories of one brand or of every brand this key reads, newest first, found by words and narrowed by filters (all optional, combined with AND). Pass next_cursor back as cursor, with the same query and filters, for the next page. A locked story's sources are not searched.",
  input: z.strictObject({
    brand: BrandHost.optional().describe('Brand host, e.g. acme.com; omit for every brand'),
    ...searchFields,
  }),
  output: z.object({
    stories: z.array(Row),
    next_cursor: z
      .string()
      .nullable()
      .describe('cursor of the next page (same query and filters), or null on the last'),
  }),
  access: {},
  rest: { method: 'GET', path: '/v1/stories/search' },
  userTool: {
    name: 'search_stories',
    title: 'Search stories',
    description:
      'Find stories by words (titles, executive summaries, and sources of unlocked stories) and filters: severity, status, date range, topic, sentiment, language, assignee. Newest first, a page at a time; pass next_cursor back as cursor with the same query for the next page.',
    args: z.strictObject({
      brand_id: BrandId.optional().describe('Brand id from list_brands; omit for all brands'),
      ...searchFields,
    }),
    // The arguments arrive parsed; the operation parses its input again, lists as text.
    toInput: ({ brand_id, severity, status, ...rest }) => ({
      ...rest,
      ...(brand_id && { brand: brand_id }),
      ...(severity && { severity: severity.join(',') }),
      ...(status && { status: status.join(',') }),
    }),
    output: z.object({
      stories: z.array(StoryRowWithState.extend({ brand_id: z.string() })),
      next_cursor: z.string().nullable(),
    }),
    present: ({ stories, next_cursor }) => ({
      stories: stories.map(({ brand, ...row }) => ({ brand_id: brand, ...row })),
      next_cursor,
    }),
  },
  portal: true,
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  async handler({ app, actor }, input) {
    if (input.from && input.to && input.from > input.to) {
      throw invalid('from: must be on or before to');
    }
    const brandIds = input.brand
      ? [(await brandFor(app, actor, input.brand)).brand.id]
      : await readableBrandIds(app.db, actor.accountId, actor.scope);
    let assignee: string | null | undefined;
    if (input.assignee === 'nobody') assignee = null;
    else if (input.assignee === 'me') {
      if (actor.kind !== 'user') throw invalid('assignee: "me" is for people; give an email');
      assignee = actor.userId;
    } else if (input.assignee) {
      const id = await userIdByEmail(app.db, input.assignee);
      // Nobody by that address is assigned anything: the page is empty, as for a teammate
      // with no stories (whether an address has an account is not told).
      if (!id) return { stories: [], next_cursor: null };
      assignee = id;
    }
    const { rows, nextCursor } = await listRecent(
      app.db,
      brandIds,
      {
        status: input.status,
        severity: input.severity,
        text: input.q,
        from: input.from,
        to: input.to,
        topic: input.topic,
        sentiment: input.sentiment,
        language: input.language,
        ...(assignee !== undefined && { assignee }),
      },
      input.limit,
      input.cursor,
    );
    return {
      stories: rows.map(({ brand_id, ...row }) => ({ brand: brand_id, ...row })),
      next_cursor: nextCursor,
    };
  },
});
