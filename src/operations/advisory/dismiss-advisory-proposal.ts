import { z } from 'zod';
import { dismissProposal } from '../../domain/proposals.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, EventUri, Ok } from '../schemas.js';

export const dismissAdvisoryProposal = defineOperation({
  id: 'dismiss_advisory_proposal',
  summary: 'Dismiss the pending advisory proposal',
  description: 'Drops the pending proposal; the live advisory stays unchanged.',
  input: z.strictObject({ brand: BrandHost, event_uri: EventUri }),
  output: z.object({
    ok: Ok,
    brand: z.string(),
    event_uri: z.string(),
    dismissed: z.literal(true),
  }),
  access: { minRole: 'admin' },
  rest: { method: 'POST', path: '/v1/story/advisory-dismiss' },
  portal: true,
  hints: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    await dismissProposal(app, { actor, access, eventUri: input.event_uri });
    return {
      ok: true,
      brand: access.brand.host,
      event_uri: input.event_uri,
      dismissed: true as const,
    };
  },
});
