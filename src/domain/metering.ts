import { CURRENCY, UNIT_PRICE_CENTS } from '../billing/billing.js';
import { type AppContext, inTransaction } from '../context.js';
import type { Db } from '../db/database.js';
import type { MeteringReservationsTable } from '../db/schema.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { METERING_SETTLE } from '../jobs/kinds.js';
import { enqueue, type JobRow } from '../jobs/queue.js';
import { writeAudit } from './audit.js';
import { lockStory } from './story-lock.js';
import { ALREADY_UNLOCKED, grantUnlock, period, type UnlockResult } from './unlock-grant.js';

/**
 * Metering an unlock at the billing provider, outside any transaction. The unlock first
 * reserves (a committed row: who pays, for which story), then calls the provider with
 * the reservation's id as the event's identifier and idempotency key, then commits the
 * unlock or releases the reservation. Exactly once, whatever dies when:
 *   - before the call: the reservation stays `reserved`; the billing.settle job (due when
 *     its lease ends) or the story's next unlock meters it with the same id;
 *   - after the call, before the commit: the same, and the provider answers the repeated
 *     call as the first (same idempotency key), so the unit counts once;
 *   - a refusal: the reservation is released and nothing is unlocked (402).
 * While a reservation's lease runs, other unlocks of the story wait for it to settle.
 */
export type Reservation = MeteringReservationsTable;

/** Reserves (or takes over) the story's metering, in the unlock's transaction. */
export async function reserveMetering(
  app: AppContext,
  r: Pick<Reservation, 'story_id' | 'account_id' | 'brand_id' | 'customer' | 'actor'>,
  open: Reservation | undefined,
): Promise<Reservation> {
  const trx = app.db;
  const now = app.clock.now();
  const lease = new Date(now.getTime() + app.config.meterLeaseMs).toISOString();
  if (open) {
    await trx
      .updateTable('metering_reservations')
      .set({ lease_until: lease })
      .where('id', '=', open.id)
      .execute();
    return { ...open, lease_until: lease };
  }
  // The id is the provider's identifier and idempotency key: the same for every try of
  // one attempt, even one whose reservation never committed (a request dying inside an
  // enclosing transaction), and new after a refusal, which the provider would replay.
  const { released } = await trx
    .selectFrom('metering_reservations')
    .select((eb) => eb.fn.countAll<number | string>().as('released'))
    .where('story_id', '=', r.story_id)
    .where('status', '=', 'released')
    .executeTakeFirstOrThrow();
  const attempt = Number(released) + 1;
  const reservation: Reservation = {
    ...r,
    id: attempt === 1 ? `unlock_${r.story_id}` : `unlock_${r.story_id}_${attempt}`,
    status: 'reserved',
    lease_until: lease,
    created_at: now.toISOString(),
    settled_at: null,
  };
  await trx.insertInto('metering_reservations').values(reservation).execute();
  // Settles it if this process dies before it does.
  await enqueue(
    trx,
    METERING_SETTLE,
    { reservation: reservation.id },
    { now: reservation.created_at, runAt: lease, maxAttempts: 8 },
  );
  return reservation;
}

/** The story's reservation still being metered, if any. */
export function openReservation(trx: Db, storyId: string) {
  return trx
    .selectFrom('metering_reservations')
    .selectAll()
    .where('story_id', '=', storyId)
    .where('status', '=', 'reserved')
    .executeTakeFirst();
}

/**
 * Meters a reservation at the provider and settles it. A refusal releases it when
 * `releaseOnFailure` (a person's request is answered 402 at once; the settle job keeps
 * trying until its last attempt) and is a `payment_failed`.
 */
export async function meterReservation(
  app: AppContext,
  r: Reservation,
  opts: { releaseOnFailure: boolean },
): Promise<UnlockResult> {
  let externalId: string;
  try {
    ({ externalId } = await app.billing.meter({
      identifier: r.id,
      customer: r.customer,
      at: new Date(r.created_at),
    }));
  } catch (e) {
    app.log?.warn({ err: e, story: r.story_id, reservation: r.id }, 'metering failed');
    if (opts.releaseOnFailure) await releaseReservation(app, r.id);
    throw new AppError('payment_failed');
  }
  return commitReservation(app, r, externalId);
}

/** Unlocks the story the provider metered, once: a settled reservation changes nothing. */
async function commitReservation(
  app: AppContext,
  r: Reservation,
  externalId: string,
): Promise<UnlockResult> {
  const now = app.clock.now();
  const at = now.toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    await lockStory(trx, { id: r.story_id }, at);
    const settled = await trx
      .updateTable('metering_reservations')
      .set({ status: 'committed', settled_at: at })
      .where('id', '=', r.id)
      .where('status', '=', 'reserved')
      .executeTakeFirst();
    if (Number(settled.numUpdatedRows) === 0) return ALREADY_UNLOCKED;
    const story = await trx
      .selectFrom('stories')
      .select('unlocked_at')
      .where('id', '=', r.story_id)
      .executeTakeFirstOrThrow();
    const audit = { accountId: r.account_id, brandId: r.brand_id, storyId: r.story_id, at };
    const charge = { amount_eur: UNIT_PRICE_CENTS / 100, provider: app.billing.provider };
    if (story.unlocked_at !== null) {
      // A one-off purchase unlocked it while this unit was metered: the unit was charged
      // all the same, so it is booked and flagged for a refund.
      await trx
        .insertInto('billing_ledger')
        .values({
          id: newId('led'),
          account_id: r.account_id,
          brand_id: r.brand_id,
          story_id: r.story_id,
          kind: 'metered',
          amount_cents: UNIT_PRICE_CENTS,
          currency: CURRENCY,
          period: period(now),
          external_id: externalId,
          created_at: at,
        })
        .execute();
      await writeAudit(trx, {
        ...audit,
        actor: r.actor,
        action: 'billing.refund_due',
        details: { ...charge, reservation: r.id },
      });
      return ALREADY_UNLOCKED;
    }
    await grantUnlock(trx, {
      storyId: r.story_id,
      payer: r.account_id,
      brandId: r.brand_id,
      actor: r.actor,
      kind: 'metered',
      cents: UNIT_PRICE_CENTS,
      externalId,
      at: now,
    });
    await writeAudit(trx, { ...audit, actor: r.actor, action: 'billing.charged', details: charge });
    return {
      ok: true,
      counted: false,
      billed_eur: UNIT_PRICE_CENTS / 100,
      note: `included units used up this month: ${UNIT_PRICE_CENTS / 100} EUR metered on the subscription`,
    };
  });
}

async function releaseReservation(app: AppContext, id: string): Promise<void> {
  await app.db
    .updateTable('metering_reservations')
    .set({ status: 'released', settled_at: app.clock.now().toISOString() })
    .where('id', '=', id)
    .where('status', '=', 'reserved')
    .execute();
}

/**
 * The billing.settle job: a reservation still `reserved` once its lease ended belongs to
 * a process that died; it is metered again with the same id (counted once) and settled.
 */
export async function settleReservationJob(
  app: AppContext,
  payload: { reservation: string },
  job: JobRow,
): Promise<unknown> {
  const r = await app.db
    .selectFrom('metering_reservations')
    .selectAll()
    .where('id', '=', payload.reservation)
    .executeTakeFirst();
  if (r?.status !== 'reserved') return { settled: r?.status ?? 'gone' };
  const taken = await inTransaction(app, async (app) => {
    const trx = app.db;
    await lockStory(trx, { id: r.story_id }, app.clock.now().toISOString());
    const open = await openReservation(trx, r.story_id);
    if (open?.id !== r.id) return undefined;
    if (open.lease_until > app.clock.now().toISOString()) throw new Error('still being metered');
    return reserveMetering(app, open, open);
  });
  if (!taken) return { settled: 'elsewhere' };
  const last = job.attempts >= job.max_attempts;
  await meterReservation(app, taken, { releaseOnFailure: last });
  return { settled: 'committed' };
}
