import type { AppContext } from '../context.js';
import { withTransaction } from '../db/database.js';
import { newId } from '../ids.js';
import { requireAccount } from './accounts.js';
import { writeAudit } from './audit.js';

/** Gives the account a subscription of the built-in ledger to meter units against. */
export async function subscribe(app: AppContext, accountId: string, actor: string): Promise<void> {
  await requireAccount(app, accountId);
  const now = app.clock.now().toISOString();
  await withTransaction(app.db, async (trx) => {
    await trx
      .insertInto('billing_subscriptions')
      .values({
        account_id: accountId,
        provider: 'ledger',
        external_id: newId('sub'),
        status: 'active',
        created_at: now,
      })
      .onConflict((oc) => oc.column('account_id').doUpdateSet({ status: 'active' }))
      .execute();
    await writeAudit(trx, { accountId, actor, action: 'billing.subscribed', at: now });
  });
}
