import { z } from 'zod';
import {
  listInvites as invites,
  pendingInviteLink,
  revokeInviteById,
} from '../../domain/delegation-invites.js';
import { listPartners as partners, revokeDelegation } from '../../domain/delegations.js';
import { actorLabel } from '../../policy.js';
import { createDelegationInvite } from '../delegations/create-delegation-invite.js';
import { revokeDelegationInvite } from '../delegations/revoke-delegation-invite.js';
import { defineOperation } from '../operation.js';
import { BrandHost, Ok, Timestamp } from '../schemas.js';

/** The client's side of delegations: the partners acting on its brands. */
export const listPartners = defineOperation({
  id: 'list_partners',
  summary: "The partners acting (or who acted) on the account's brands",
  input: z.strictObject({}),
  output: z.object({
    partners: z.array(
      z.object({
        brand: z.string(),
        partner: z.string(),
        partner_name: z.string(),
        status: z.string(),
        created_at: Timestamp,
        ended_at: Timestamp.nullable(),
      }),
    ),
  }),
  access: {},
  portal: true,
  async handler({ app, actor }) {
    return { partners: await partners(app, actor.accountId) };
  },
});

/**
 * The client takes a brand back from a partner (owners and admins, terminal): the
 * app-side twin of the partner's drop, as `brs delegation revoke` does for operators.
 */
export const revokePartner = defineOperation({
  id: 'revoke_partner',
  summary: 'Take a brand back from a partner',
  input: z.strictObject({ brand: BrandHost, partner: z.string().min(1).max(100) }),
  output: z.object({ ok: Ok, status: z.literal('revoked') }),
  access: { minRole: 'admin' },
  portal: true,
  async handler({ app, actor }, input) {
    await revokeDelegation(app, {
      clientId: actor.accountId,
      partnerId: input.partner,
      host: input.brand,
      actor: actorLabel(actor),
    });
    return { ok: true, status: 'revoked' as const };
  },
});

/** A partner's invitations and their states, newest first (pending ones expire on read). */
export const listInvites = defineOperation({
  id: 'list_delegation_invites',
  summary: "The partner's delegation invitations",
  input: z.strictObject({}),
  output: z.object({
    invites: z.array(
      z.object({
        id: z.string(),
        brand_host: z.string(),
        status: z.enum(['pending', 'used', 'declined', 'expired', 'revoked']),
        created_at: Timestamp,
        expires_at: Timestamp,
      }),
    ),
  }),
  access: {},
  portal: true,
  async handler({ app, actor }) {
    return { invites: await invites(app, actor.accountId) };
  },
});

/** Revokes a pending invitation of this partner by its id (the portal never shows tokens twice). */
export const revokeInviteInApp = defineOperation({
  id: 'revoke_delegation_invite_by_id',
  summary: 'Revoke a pending delegation invitation',
  input: z.strictObject({ id: z.string().min(1).max(100) }),
  output: revokeDelegationInvite.output,
  access: revokeDelegationInvite.access,
  portal: true,
  handler: ({ app, actor }, input) =>
    revokeInviteById(app, actor.accountId, input.id, actorLabel(actor)),
});

/**
 * A pending invitation's link again, for the partner to send once more (the token is
 * derived from the invitation, so it is the same link; docs/api.md, "Delegation invites").
 */
export const inviteLink = defineOperation({
  id: 'get_delegation_invite_link',
  summary: "A pending delegation invitation's link",
  input: z.strictObject({ id: z.string().min(1).max(100) }),
  output: z.object({ onboarding_url: z.string() }),
  access: createDelegationInvite.access,
  portal: true,
  async handler({ app, actor }, input) {
    return { onboarding_url: await pendingInviteLink(app, actor.accountId, input.id) };
  },
});
