import { z } from 'zod';
import { expirePending, revokeInvite, tokenOf } from '../../domain/delegation-invites.js';
import { revokeDelegation } from '../../domain/delegations.js';
import { notFound } from '../../errors.js';
import { actorLabel } from '../../policy.js';
import { revokeDelegationInvite } from '../delegations/revoke-delegation-invite.js';
import { BrandHost } from '../schemas.js';
import { definePortalOperation } from './define.js';

/** The client's side of delegations: the partners acting on its brands. */
export const listPartners = definePortalOperation({
  access: {},
  input: z.strictObject({}),
  async handler({ app, actor }) {
    const rows = await app.db
      .selectFrom('delegations as d')
      .innerJoin('brands as b', 'b.id', 'd.brand_id')
      .innerJoin('accounts as p', 'p.id', 'd.partner_account_id')
      .select([
        'b.host as brand',
        'p.id as partner',
        'p.name as partner_name',
        'd.status',
        'd.created_at',
        'd.ended_at',
      ])
      .where('d.client_account_id', '=', actor.accountId)
      .orderBy('d.created_at', 'desc')
      .orderBy('d.id', 'desc')
      .execute();
    return { partners: rows };
  },
});

/**
 * The client takes a brand back from a partner (owners and admins, terminal): the
 * app-side twin of the partner's drop, as `brs delegation revoke` does for operators.
 */
export const revokePartner = definePortalOperation({
  access: { minRole: 'admin' },
  input: z.strictObject({ brand: BrandHost, partner: z.string().min(1).max(100) }),
  async handler({ app, actor }, input) {
    await revokeDelegation(app, actor.accountId, input.partner, input.brand, actorLabel(actor));
    return { ok: true, status: 'revoked' };
  },
});

/** A partner's invitations and their states, newest first (pending ones expire on read). */
export const listInvites = definePortalOperation({
  access: {},
  input: z.strictObject({}),
  async handler({ app, actor }) {
    await expirePending(app.db, app.clock.now().toISOString(), { partnerId: actor.accountId });
    const rows = await app.db
      .selectFrom('delegation_invites')
      .select(['id', 'brand_host', 'status', 'created_at', 'expires_at'])
      .where('partner_account_id', '=', actor.accountId)
      .orderBy('created_at', 'desc')
      .limit(100)
      .execute();
    return { invites: rows };
  },
});

/** Revokes a pending invitation of this partner by its id (the portal never shows tokens twice). */
export const revokeInviteInApp = definePortalOperation({
  access: revokeDelegationInvite.access,
  input: z.strictObject({ id: z.string().min(1).max(100) }),
  async handler({ app, actor }, input) {
    const invite = await app.db
      .selectFrom('delegation_invites')
      .select('id')
      .where('id', '=', input.id)
      .where('partner_account_id', '=', actor.accountId)
      .executeTakeFirst();
    if (!invite) throw notFound();
    return revokeInvite(app, actor.accountId, await tokenOf(app, invite.id), actorLabel(actor));
  },
});
