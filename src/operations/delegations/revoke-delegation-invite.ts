import { z } from 'zod';
import { revokeInvite } from '../../domain/delegation-invites.js';
import { actorLabel } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { InviteToken, Ok } from '../schemas.js';

export const revokeDelegationInvite = defineOperation({
  id: 'revoke_delegation_invite',
  summary: 'Revoke a pending delegation invite',
  description:
    'Revokes a pending invite of this account: its onboarding URL stops working. A used, declined, expired or already revoked invite answers 409 naming its state.',
  input: z.object({ token: InviteToken }),
  output: z.object({ ok: Ok, token: z.string(), status: z.literal('revoked') }),
  access: { minRole: 'admin', fullScope: true },
  rest: { method: 'DELETE', path: '/v1/delegation-invites' },
  hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  async handler({ app, actor }, input) {
    return revokeInvite(app, actor.accountId, input.token, actorLabel(actor));
  },
});
