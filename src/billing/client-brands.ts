import { type AppContext, inTransaction } from '../context.js';
import type { JobRow } from '../jobs/queue.js';

/**
 * The recalculation job of a partner's billed quantity: its active client brands. It is
 * enqueued whenever a delegation starts or ends. It runs under a lock on the partner's
 * subscription row and counts under that lock, so of two runs the later one reports the
 * later number, and a burst of changes settles on the latest count. With a subscription,
 * a changed quantity is reported to billing (once per job, however often the job is
 * retried) and recorded.
 */
export async function recalculateClientBrands(
  app: AppContext,
  payload: { account: string },
  job: JobRow,
): Promise<{ client_brands: number; reported: boolean }> {
  return inTransaction(app, async (app) => {
    const trx = app.db;
    const locked = await trx
      .updateTable('billing_subscriptions')
      .set((eb) => ({ client_brands: eb.ref('client_brands') }))
      .where('account_id', '=', payload.account)
      .where('status', '=', 'active')
      .executeTakeFirst();
    const { n } = await trx
      .selectFrom('delegations')
      .select((eb) => eb.fn.count<number | string>('brand_id').distinct().as('n'))
      .where('partner_account_id', '=', payload.account)
      .where('status', '=', 'active')
      .executeTakeFirstOrThrow();
    const quantity = Number(n);
    if (Number(locked.numUpdatedRows) === 0) return { client_brands: quantity, reported: false };
    const sub = await trx
      .selectFrom('billing_subscriptions')
      .select(['external_id', 'client_brands'])
      .where('account_id', '=', payload.account)
      .executeTakeFirstOrThrow();
    if (sub.client_brands === quantity) return { client_brands: quantity, reported: false };
    const at = app.clock.now();
    // The same event whenever this job runs again (after its instance died, say): the
    // job's own time, and the count in its identifier. A re-run that counts the same
    // sends the very request again, which Stripe answers once; one that counts otherwise
    // is a new event, and the later count wins.
    await app.billing.reportClientBrands({
      identifier: `client-brands-${job.id}-${quantity}`,
      customer: sub.external_id,
      quantity,
      at: new Date(job.created_at),
    });
    await trx
      .updateTable('billing_subscriptions')
      .set({ client_brands: quantity, quantity_updated_at: at.toISOString() })
      .where('account_id', '=', payload.account)
      .execute();
    return { client_brands: quantity, reported: true };
  });
}
