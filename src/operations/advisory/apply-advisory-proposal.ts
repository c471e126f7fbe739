import { z } from 'zod';
import { applyProposal } from '../../domain/proposals.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, EventUri, Ok, StoryArgs, StoryStatus } from '../schemas.js';

export const applyAdvisoryProposal = defineOperation({
  id: 'apply_advisory_proposal',
  summary: 'Apply the pending advisory proposal',
  description:
    'Replaces the live advisory with the ready proposal. Phases already assigned or done stay verbatim with their assignees.',
  input: z.strictObject({ brand: BrandHost, event_uri: EventUri }),
  output: z.object({
    ok: Ok,
    brand: z.string(),
    event_uri: z.string(),
    applied: z.literal(true),
    status: StoryStatus.describe("the story's status afterwards"),
  }),
  // Spec 3.2: owners among people, owners and admins among keys.
  access: { user: { minRole: 'owner' }, key: { minRole: 'admin' } },
  rest: { method: 'POST', path: '/v1/story/advisory-apply' },
  userTool: {
    name: 'apply_advisory_update',
    title: 'Apply the advisory update',
    description:
      'Replaces the live advisory with the pending update (see add_context). Phases already assigned or done stay as they are.',
    args: z.strictObject(StoryArgs),
    toInput: (a) => ({ brand: a.brand_id, event_uri: a.event_uri }),
  },
  portal: true,
  hints: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    const { status } = await applyProposal(app, { actor, access, eventUri: input.event_uri });
    return {
      ok: true,
      brand: access.brand.host,
      event_uri: input.event_uri,
      applied: true as const,
      status,
    };
  },
});
