import { z } from 'zod';
import { readableBrands } from '../../domain/brands.js';
import { recentRequests } from '../../domain/story-from-url.js';
import { defineOperation } from '../operation.js';
import { Timestamp } from '../schemas.js';

/**
 * Stories asked for from a URL on the brands the caller reads: those being made, and
 * those that could not be made in the last day, with why.
 */
export const listStoryRequests = defineOperation({
  id: 'list_story_requests',
  summary: 'Stories being made from URLs, and those that could not be',
  input: z.strictObject({}),
  output: z.object({
    requests: z.array(
      z.object({
        job: z.string(),
        url: z.string(),
        brand: z.string(),
        requested_at: Timestamp,
        state: z.enum(['queued', 'running', 'failed']),
        reason: z.string().nullable(),
      }),
    ),
  }),
  access: {},
  portal: true,
  async handler({ app, actor }) {
    const brands = await readableBrands(app, actor.accountId, actor.scope);
    return {
      requests: await recentRequests(
        app,
        brands.map((b) => b.brand),
      ),
    };
  },
});
