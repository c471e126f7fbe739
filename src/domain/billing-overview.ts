import { UNIT_PRICE_CENTS } from '../billing/billing.js';
import type { AppContext } from '../context.js';
import type { Plan } from '../db/schema.js';
import { includedUnitsLeft } from './unlock.js';

/**
 * What an account pays for: its plan and subscription, the included units left this
 * month per own brand, and the ledger of units used, metered and bought (newest 100).
 */
export async function billingOverview(app: AppContext, accountId: string, plan: Plan) {
  const brands = await app.db
    .selectFrom('brands')
    .select(['id', 'host', 'name'])
    .where('account_id', '=', accountId)
    .orderBy('host')
    .execute();
  const included = app.config.includedUnits[plan];
  const units = [];
  for (const b of brands) {
    units.push({ brand: b.host, name: b.name, included, left: await includedUnitsLeft(app, b.id) });
  }
  const subscription = await app.db
    .selectFrom('billing_subscriptions')
    .select(['provider', 'status', 'client_brands', 'created_at'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  const ledger = await app.db
    .selectFrom('billing_ledger as l')
    .innerJoin('brands as b', 'b.id', 'l.brand_id')
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
