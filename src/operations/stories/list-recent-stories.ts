import { z } from 'zod';
import { listRecentStories as listRecent, readableBrandIds } from '../../domain/stories.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandId, Cursor, Limit, Severity, StoryStatus } from '../schemas.js';
import { StoryRowWithState } from '../shapes.js';

/**
 * The people's story list (the MCP session's list_stories and the portal's): every brand
 * at once or one, filtered by status and severity, with the working state.
 */
export const listRecentStories = defineOperation({
  id: 'list_recent_stories',
  summary: 'List recent stories across brands',
  input: z.strictObject({
    brand_id: BrandId.optional().describe('Brand id from list_brands; omit for all brands'),
    status: StoryStatus.optional().describe('Only stories in this status'),
    severity: Severity.optional().describe('Only stories of this severity'),
    limit: Limit,
    cursor: Cursor,
  }),
  output: z.object({
    stories: z.array(StoryRowWithState.extend({ brand_id: z.string() })),
    next_cursor: z
      .string()
      .nullable()
      .describe('cursor of the next page (same filters), or null on the last'),
  }),
  access: {},
  userTool: {
    name: 'list_stories',
    title: 'List stories',
    description:
      'Stories newest first, with their working state, across all your brands or one, a page at a time (limit, default 50). Pass next_cursor back as cursor, with the same filters, for the next page. To find stories by words, severity, topic or dates, use search_stories.',
  },
  portal: true,
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  async handler({ app, actor }, input) {
    const ids = input.brand_id
      ? [(await brandFor(app, actor, input.brand_id)).brand.id]
      : await readableBrandIds(app.db, actor.accountId);
    const { rows, nextCursor } = await listRecent(
      app.db,
      ids,
      {
        ...(input.status && { status: [input.status] }),
        ...(input.severity && { severity: [input.severity] }),
      },
      input.limit,
      input.cursor,
    );
    return { stories: rows, next_cursor: nextCursor };
  },
});
