import { z } from 'zod';
import { addContext } from '../../domain/proposals.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, ContextText, EventUri, Ok, Timestamp } from '../schemas.js';

export const addStoryContext = defineOperation({
  id: 'add_story_context',
  method: 'POST',
  path: '/v1/story/context',
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
  hints: { readOnly: false, destructive: false, openWorld: false },
  status: 202,
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    const pending = await addContext(app, actor, access, input.event_uri, input.context);
    return {
      ok: true,
      brand: access.brand.host,
      event_uri: input.event_uri,
      advisory_pending: pending,
    };
  },
});
