import type { AppContext } from '../context.js';
import { withTransaction } from '../db/database.js';
import { conflict, invalid } from '../errors.js';
import { newId } from '../ids.js';
import { requireAccount } from './accounts.js';
import { writeAudit } from './audit.js';
import { requireBrandByHost } from './brands.js';

/**
 * The client grants a partner the right to act on one of its brands: the consent step of
 * the app. Never reachable with an API key.
 */
export async function grantDelegation(
  app: AppContext,
  opts: { partnerId: string; clientId: string; host: string; actor: string },
): Promise<'active'> {
  const partner = await requireAccount(app, opts.partnerId);
  await requireAccount(app, opts.clientId);
  const brand = await requireBrandByHost(app, opts.host);
  if (brand.account_id !== opts.clientId) throw invalid('brand: not a brand of the client account');
  if (partner.id === opts.clientId) throw invalid('partner: must differ from the client');
  if (partner.plan !== 'agency') throw invalid('partner: client delegation needs the agency plan');
  const now = app.clock.now().toISOString();
  await withTransaction(app.db, async (trx) => {
    const active = await trx
      .selectFrom('delegations')
      .select('id')
      .where('brand_id', '=', brand.id)
      .where('partner_account_id', '=', partner.id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (active) throw conflict('delegation: already active');
    await trx
      .insertInto('delegations')
      .values({
        id: newId('dlg'),
        partner_account_id: partner.id,
        client_account_id: opts.clientId,
        brand_id: brand.id,
        status: 'active',
        granted_at: now,
        ended_at: null,
        created_at: now,
      })
      .execute();
    await writeAudit(trx, {
      accountId: opts.clientId,
      brandId: brand.id,
      actor: opts.actor,
      action: 'delegation.granted',
      details: { partner: partner.id },
      at: now,
    });
  });
  return 'active';
}
