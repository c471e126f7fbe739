import { z } from 'zod';
import { listStoryPage, storyWorkingState } from '../../domain/stories.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, Cursor, Limit } from '../schemas.js';
import { StoryRow, StoryRowWithState } from '../shapes.js';

export const listStories = defineOperation({
  id: 'list_stories',
  summary: 'List the stories of a brand',
  description:
    'Stories of one brand, newest first. Pass next_cursor back as cursor for the next page.',
  input: z.object({ brand: BrandHost, limit: Limit, cursor: Cursor }),
  output: z.object({
    brand: z.string(),
    stories: z.array(StoryRow),
    next_cursor: z.string().nullable().describe('cursor of the next page, or null on the last'),
  }),
  access: {},
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  async handler({ app, actor }, input) {
    const { brand } = await brandFor(app, actor, input.brand);
    const page = await listStoryPage(app.db, brand.id, input.limit, input.cursor);
    return { brand: brand.host, stories: page.rows, next_cursor: page.nextCursor };
  },
  rest: {
    method: 'GET',
    path: '/v1/stories',
    // Spec 2.1: the v1_ tool's rows also carry the working state shown in the portal.
    tool: {
      output: z.object({
        brand: z.string(),
        stories: z.array(StoryRowWithState),
        next_cursor: z.string().nullable().describe('cursor of the next page, or null on the last'),
      }),
      async handler({ app, actor }, input) {
        const { brand } = await brandFor(app, actor, input.brand);
        const page = await listStoryPage(app.db, brand.id, input.limit, input.cursor);
        const state = await storyWorkingState(
          app.db,
          brand.id,
          page.rows.map((r) => r.event_uri),
        );
        return {
          brand: brand.host,
          stories: page.rows.map((r) => ({ ...r, ...state.get(r.event_uri) })),
          next_cursor: page.nextCursor,
        };
      },
    },
  },
});
