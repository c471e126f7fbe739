import { z } from 'zod';
import { createInvite } from '../../domain/delegation-invites.js';
import { actorLabel } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, HttpsUrl, Ok, Timestamp } from '../schemas.js';

export const createDelegationInvite = defineOperation({
  id: 'create_delegation_invite',
  summary: 'Invite a client to delegate a brand',
  description:
    "Returns a white-label onboarding URL for a client brand: the client signs up through it with an email on the brand's own domain, confirms the email, consents to this account acting on the brand, and is sent to return_url with brand and outcome (approved or declined) as query parameters. While a pending invite for the same brand is valid, the same token comes back. Invites expire after 14 days.",
  input: z.strictObject({
    brand: BrandHost.describe('Client brand host'),
    return_url: HttpsUrl.describe("HTTPS URL of the partner's product to return the client to"),
  }),
  output: z.object({
    ok: Ok,
    brand: z.string(),
    token: z.string().describe('the invite token; revoke with revoke_delegation_invite'),
    onboarding_url: z.string().describe('the page to send the client to'),
    status: z.literal('pending'),
    return_url: z.string(),
    expires_at: Timestamp,
  }),
  access: { minRole: 'admin', fullScope: true, plans: ['agency'] },
  rest: { method: 'POST', path: '/v1/delegation-invites' },
  portal: true,
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  async handler({ app, actor }, input) {
    return createInvite(app, {
      partnerId: actor.accountId,
      host: input.brand,
      returnUrl: input.return_url,
      actor: actorLabel(actor),
    });
  },
});
