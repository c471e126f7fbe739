import { z } from 'zod';
import { listStoryPage } from '../../domain/stories.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, Cursor, Limit } from '../schemas.js';
import { StoryRow } from '../shapes.js';

export const listStories = defineOperation({
  id: 'list_stories',
  method: 'GET',
  path: '/v1/stories',
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
  hints: { readOnly: true, destructive: false, openWorld: false },
  async handler({ app, actor }, input) {
    const { brand } = await brandFor(app, actor, input.brand);
    const page = await listStoryPage(app.db, brand.id, input.limit, input.cursor);
    return { brand: brand.host, stories: page.rows as never, next_cursor: page.nextCursor };
  },
});
