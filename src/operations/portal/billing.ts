import { z } from 'zod';
import { UNIT_PRICE_CENTS } from '../../billing/billing.js';
import { includedUnitsLeft } from '../../domain/unlock.js';
import { definePortalOperation } from './define.js';

/**
 * What the account pays for (owners and admins): its plan and subscription, the included
 * units left this month per own brand, and the ledger of units used, metered and bought.
 */
export const billingOverview = definePortalOperation({
  access: { minRole: 'admin' },
  input: z.strictObject({}),
  async handler({ app, actor }) {
    const brands = await app.db
      .selectFrom('brands')
      .select(['id', 'host', 'name'])
      .where('account_id', '=', actor.accountId)
      .orderBy('host')
      .execute();
    const included = app.config.includedUnits[actor.plan];
    const units = [];
    for (const b of brands) {
      units.push({
        brand: b.host,
        name: b.name,
        included,
        left: await includedUnitsLeft(app, b.id),
      });
    }
    const subscription = await app.db
      .selectFrom('billing_subscriptions')
      .select(['provider', 'status', 'client_brands', 'created_at'])
      .where('account_id', '=', actor.accountId)
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
      .where('l.account_id', '=', actor.accountId)
      .orderBy('l.created_at', 'desc')
      .orderBy('l.id', 'desc')
      .limit(100)
      .execute();
    return {
      plan: actor.plan,
      unit_price_cents: UNIT_PRICE_CENTS,
      units,
      subscription: subscription ?? null,
      ledger,
    };
  },
});
