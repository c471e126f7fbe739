import { z } from 'zod';
import { revokeDelegation } from '../../domain/delegations.js';
import { actorLabel } from '../../policy.js';
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
