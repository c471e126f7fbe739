import { z } from 'zod';
import { unassignStory as unassign } from '../../domain/assignments.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, EventUri, Ok, StoryStatus } from '../schemas.js';

export const unassignStory = defineOperation({
  id: 'unassign_story',
  summary: "Clear a story's assignment",
  description:
    'Clears the assignment; the status returns to new (a closed story stays closed). Own brands only.',
  input: z.object({ brand: BrandHost, event_uri: EventUri }),
  output: z.object({
    ok: Ok,
    brand: z.string(),
    event_uri: z.string(),
    unassigned: z.boolean().describe('false when the story had no assignee'),
    status: StoryStatus,
  }),
  access: {},
  rest: { method: 'DELETE', path: '/v1/story/assign' },
  portal: true,
  hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    const r = await unassign(app, { actor, access, eventUri: input.event_uri });
    return { ok: true, brand: access.brand.host, event_uri: input.event_uri, ...r };
  },
});
