import { z } from 'zod';
import { readableBrands } from '../../domain/brands.js';
import { nextDate } from '../../domain/local-time.js';
import {
  myOpenPhases,
  newestSerious,
  portfolio,
  storiesByStatus,
  topValues,
  volumeByDay,
} from '../../domain/overview.js';
import { readableBrandIds } from '../../domain/stories.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, Severity, StoryStatus } from '../schemas.js';

const Count = z.object({ value: z.string(), mentions: z.number() });

export const OVERVIEW_PERIODS = [7, 30, 90] as const;

/**
 * The portal's home: how coverage moves over the last 7, 30 or 90 days (UTC), what is
 * open, what is mine to do, the newest serious stories; across every brand the team reads
 * or for one, with a row per brand when there are several (an agency's portfolio).
 */
export const overview = defineOperation({
  id: 'overview',
  summary: 'Coverage and work at a glance',
  input: z.strictObject({
    brand: BrandHost.optional(),
    days: z.coerce
      .number()
      .refine((d) => (OVERVIEW_PERIODS as readonly number[]).includes(d), 'must be 7, 30 or 90')
      .default(30),
  }),
  output: z.object({
    brand: z.string().nullable(),
    days: z.number(),
    first: z.string(),
    today: z.string(),
    brands: z.array(z.object({ brand: z.string(), name: z.string() })),
    volume: z.array(
      z.object({
        day: z.string(),
        bySeverity: z.record(Severity, z.number()),
        sentiment: z.number().nullable(),
      }),
    ),
    publishers: z.array(Count),
    types: z.array(Count).describe('mentions by source type: news, social, forum, review, …'),
    topics: z.array(Count),
    statuses: z.record(StoryStatus, z.number()),
    serious: z.array(
      z.object({
        host: z.string(),
        event_uri: z.string(),
        title: z.string(),
        severity: Severity,
        status: StoryStatus,
        detected_at: z.string(),
      }),
    ),
    mine: z.array(
      z.object({
        host: z.string(),
        event_uri: z.string(),
        story: z.string(),
        number: z.number(),
        title: z.string(),
        due_on: z.string().nullable(),
      }),
    ),
    portfolio: z
      .array(
        z.object({
          host: z.string(),
          name: z.string(),
          mentions: z.number(),
          previous: z.number(),
          serious: z.number(),
          sentiment: z.number().nullable(),
          open: z.number(),
        }),
      )
      .nullable()
      .describe('a row per brand when the overview covers several'),
  }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    const brands = await readableBrands(app, actor.accountId, actor.scope);
    const ids = input.brand
      ? [(await brandFor(app, actor, input.brand)).brand.id]
      : await readableBrandIds(app.db, actor.accountId, actor.scope);
    const today = app.clock.now().toISOString().slice(0, 10);
    const first = nextDate(today, -(input.days - 1));
    const [volume, publishers, types, topics, statuses, serious, mine] = await Promise.all([
      volumeByDay(app.db, ids, first, today),
      topValues(app.db, ids, 'publisher', first, today),
      topValues(app.db, ids, 'type', first, today),
      topValues(app.db, ids, 'topic', first, today),
      storiesByStatus(app.db, ids),
      newestSerious(app.db, ids),
      actor.kind === 'user' ? myOpenPhases(app.db, actor.userId, ids) : Promise.resolve([]),
    ]);
    return {
      brand: input.brand ?? null,
      days: input.days,
      first,
      today,
      brands: brands.map((b) => ({ brand: b.brand, name: b.name })),
      volume,
      publishers,
      types,
      topics,
      statuses,
      serious,
      mine,
      portfolio: !input.brand && ids.length > 1 ? await portfolio(app.db, ids, first, today) : null,
    };
  },
});
