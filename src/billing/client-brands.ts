import type { AppContext } from '../context.js';
import type { JobRow } from '../jobs/queue.js';

/**
 * The recalculation job of a partner's billed quantity: its active client brands. It is
 * enqueued whenever a delegation starts or ends; the count is read when it runs, so a
 * burst of changes settles on the latest number. With a subscription, the new quantity
 * is reported to billing (once per job, however often the job is retried) and recorded.
 */
export async function recalculateClientBrands(
  app: AppContext,
  payload: { account: string },
  job: JobRow,
): Promise<{ client_brands: number; reported: boolean }> {
  const { n } = await app.db
    .selectFrom('delegations')
    .select((eb) => eb.fn.count<number | string>('brand_id').distinct().as('n'))
    .where('partner_account_id', '=', payload.account)
    .where('status', '=', 'active')
    .executeTakeFirstOrThrow();
  const quantity = Number(n);
  const sub = await app.db
    .selectFrom('billing_subscriptions')
    .select(['external_id', 'client_brands', 'status'])
    .where('account_id', '=', payload.account)
    .executeTakeFirst();
  if (sub?.status !== 'active' || sub.client_brands === quantity) {
    return { client_brands: quantity, reported: false };
  }
  const at = app.clock.now();
  await app.billing.reportClientBrands({
    identifier: `client-brands-${job.id}`,
    customer: sub.external_id,
    quantity,
    at,
  });
  await app.db
    .updateTable('billing_subscriptions')
    .set({ client_brands: quantity, quantity_updated_at: at.toISOString() })
    .where('account_id', '=', payload.account)
    .execute();
  return { client_brands: quantity, reported: true };
}
