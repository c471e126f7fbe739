import { z } from 'zod';
import { addContext } from '../../domain/proposals.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, ContextText, EventUri, Ok, StoryArgs, Timestamp } from '../schemas.js';

export const addStoryContext = defineOperation({
  id: 'add_story_context',
  summary: 'Add context to regenerate the advisory',
  description:
    "Adds the brand's authoritative context (at most 2000 characters). A proposal is generated in the background; poll get_story until advisory_pending.status is ready, then apply or dismiss it. The live advisory never changes without an apply. Requires an unlocked advisory.",
  input: z.strictObject({ brand: BrandHost, event_uri: EventUri, context: ContextText }),
  output: z.object({
    ok: Ok,
    brand: z.string(),
    event_uri: z.string(),
    advisory_pending: z.object({
      status: z.literal('generating'),
      requested_at: Timestamp,
      context: z.string(),
    }),
  }),
  access: {},
  rest: { method: 'POST', path: '/v1/story/context', status: 202 },
  userTool: {
    name: 'add_context',
    title: 'Add context to an advisory',
    description:
      "Gives the brand's authoritative context (at most 2000 characters). An updated advisory is proposed as a pending version with a change diff: get_story shows it under advisory_pending once ready. Nothing changes until apply_advisory_update.",
    args: z.strictObject({ ...StoryArgs, context: ContextText }),
    toInput: (a) => ({ brand: a.brand_id, event_uri: a.event_uri, context: a.context }),
  },
  portal: true,
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    const pending = await addContext(app, {
      actor,
      access,
      eventUri: input.event_uri,
      context: input.context,
    });
    return {
      ok: true,
      brand: access.brand.host,
      event_uri: input.event_uri,
      advisory_pending: pending,
    };
  },
});
