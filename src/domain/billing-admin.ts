import { type AppContext, inTransaction } from '../context.js';
import { invalid } from '../errors.js';
import { newId } from '../ids.js';
import { CLIENT_BRANDS } from '../jobs/kinds.js';
import { enqueue } from '../jobs/queue.js';
import { requireAccount } from './accounts.js';
import { writeAudit } from './audit.js';

/**
 * Gives the account a subscription to meter units against: on the built-in ledger, or
 * with BILLING=stripe on the given Stripe customer.
 */
export async function subscribe(
  app: AppContext,
  accountId: string,
  actor: string,
  customer?: string,
): Promise<void> {
  await requireAccount(app, accountId);
  const provider = app.billing.provider;
  if (provider === 'stripe' && !customer) {
    throw invalid('customer: required with BILLING=stripe (the Stripe customer id, cus_…)');
  }
  const externalId = customer ?? newId('sub');
  const now = app.clock.now().toISOString();
  await inTransaction(app, async (app) => {
    const trx = app.db;
    await trx
      .insertInto('billing_subscriptions')
      .values({
        account_id: accountId,
        provider,
        external_id: externalId,
        status: 'active',
        created_at: now,
        client_brands: 0,
        quantity_updated_at: null,
      })
      .onConflict((oc) =>
        oc
          .column('account_id')
          .doUpdateSet({ status: 'active', provider, external_id: externalId }),
      )
      .execute();
    await writeAudit(trx, { accountId, actor, action: 'billing.subscribed', at: now });
    // A partner's client brands are billed from now on: report the current number.
    await enqueue(trx, CLIENT_BRANDS, { account: accountId }, { now });
  });
}
