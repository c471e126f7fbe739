import { UNIT_PRICE_CENTS } from '../billing/billing.js';
import type { AppContext } from '../context.js';
import type { Plan } from '../db/schema.js';
import { includedUnitsOf } from './unlock.js';
import { period } from './unlock-grant.js';

/**
 * What an account pays for: its plan and subscription; per brand it works on (its own,
 * and the client brands delegated to it) the included units left this month of the
 * brand's plan and what this account used on it this month; and the ledger of units
 * used, metered and bought (newest 100), also for brands deleted since.
 */
export async function billingOverview(app: AppContext, accountId: string, plan: Plan) {
  const now = app.clock.now();
  const own = await app.db
    .selectFrom('brands')
    .select(['id', 'host', 'name'])
    .where('account_id', '=', accountId)
    .orderBy('host')
    .execute();
  const clients = await app.db
    .selectFrom('delegations as d')
    .innerJoin('brands as b', 'b.id', 'd.brand_id')
    .select(['b.id', 'b.host', 'b.name'])
    .where('d.partner_account_id', '=', accountId)
    .where('d.status', '=', 'active')
    .orderBy('b.host')
    .execute();
  const month = await app.db
    .selectFrom('billing_ledger')
    .select(['brand_id', 'kind', 'amount_cents'])
    .where('account_id', '=', accountId)
    .where('period', '=', period(now))
    .execute();
  const units = [];
  for (const [relation, list] of [
    ['own', own],
    ['client', clients],
  ] as const) {
    for (const b of list) {
      const used = month.filter((l) => l.brand_id === b.id);
      const { left, included } = await includedUnitsOf(app, b.id);
      units.push({
        brand: b.host,
        name: b.name,
        relation,
        included,
        left,
        used_included: used.filter((l) => l.kind === 'included').length,
        used_paid: used.filter((l) => l.kind !== 'included').length,
        cents: used.reduce((sum, l) => sum + l.amount_cents, 0),
      });
    }
  }
  const subscription = await app.db
    .selectFrom('billing_subscriptions')
    .select(['provider', 'status', 'client_brands', 'created_at'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  const ledger = await app.db
    .selectFrom('billing_ledger as l')
    .leftJoin('brands as b', 'b.id', 'l.brand_id')
    .leftJoin('stories as s', 's.id', 'l.story_id')
    .select([
      'l.created_at',
      'l.kind',
      'l.amount_cents',
      'l.currency',
      'l.period',
      'b.host',
      's.title',
    ])
    .where('l.account_id', '=', accountId)
    .orderBy('l.created_at', 'desc')
    .orderBy('l.id', 'desc')
    .limit(100)
    .execute();
  return {
    plan,
    unit_price_cents: UNIT_PRICE_CENTS,
    units,
    subscription: subscription ?? null,
    ledger,
  };
}
