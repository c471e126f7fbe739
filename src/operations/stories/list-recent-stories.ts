import { z } from 'zod';
import { listRecentStories as listRecent, readableBrandIds } from '../../domain/stories.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandId, Severity, StoryStatus } from '../schemas.js';
import { StoryRowWithState } from '../shapes.js';

/** At most this many stories per answer, newest first. */
export const RECENT_LIMIT = 100;

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
  }),
  output: z.object({
    stories: z.array(StoryRowWithState.extend({ brand_id: z.string() })),
    more: z.boolean().describe('true when older stories were left out'),
  }),
  access: {},
  userTool: {
    name: 'list_stories',
    title: 'List stories',
    description: `Stories newest first, with their working state, across all your brands or one. At most ${RECENT_LIMIT}; more=true when older ones exist (narrow with brand_id or status).`,
  },
  portal: true,
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  async handler({ app, actor }, input) {
    const ids = input.brand_id
      ? [(await brandFor(app, actor, input.brand_id)).brand.id]
      : await readableBrandIds(app.db, actor.accountId);
    const { rows, more } = await listRecent(
      app.db,
      ids,
      { status: input.status, severity: input.severity },
      RECENT_LIMIT,
    );
    return { stories: rows, more };
  },
});
