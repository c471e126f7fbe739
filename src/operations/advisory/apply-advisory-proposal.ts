import { z } from 'zod';
import { applyProposal } from '../../domain/proposals.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, EventUri, Ok, StoryStatus } from '../schemas.js';

export const applyAdvisoryProposal = defineOperation({
  id: 'apply_advisory_proposal',
  method: 'POST',
  path: '/v1/story/advisory-apply',
  summary: 'Apply the pending advisory proposal',
  description:
    'Replaces the live advisory with the ready proposal. Phases already assigned or done stay verbatim with their assignees. Owner or admin keys only.',
  input: z.strictObject({ brand: BrandHost, event_uri: EventUri }),
  output: z.object({
    ok: Ok,
    brand: z.string(),
    event_uri: z.string(),
    applied: z.literal(true),
    status: StoryStatus.describe("the story's status afterwards"),
  }),
  access: { minRole: 'admin' },
  hints: { readOnly: false, destructive: true, openWorld: false },
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    const { status } = await applyProposal(app, actor, access, input.event_uri);
    return {
      ok: true,
      brand: access.brand.host,
      event_uri: input.event_uri,
      applied: true as const,
      status: status as never,
    };
  },
});
