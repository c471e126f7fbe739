import { effectivePlan } from '../auth/effective-plan.js';
import { CURRENCY, UNIT_PRICE_CENTS } from '../billing/billing.js';
import { type AppContext, inTransaction } from '../context.js';
import { lockRow } from '../db/locks.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { type Actor, actorLabel, type BrandAccess } from '../policy.js';
import { writeAudit } from './audit.js';
import {
  meterReservation,
  openReservation,
  type Reservation,
  reserveMetering,
} from './metering.js';
import { refreshStoryDocument } from './story-documents.js';
import { lockStory } from './story-lock.js';
import { ALREADY_UNLOCKED, grantUnlock, period, type UnlockResult } from './unlock-grant.js';

export type { UnlockResult } from './unlock-grant.js';

/**
 * Unlocks a story's advisory (spec 3.2). The included units of the brand's plan are used
 * first; beyond them one unit is metered on the payer's subscription (the partner, for a
 * delegated brand), unless `allowMetering` is false (people are never charged by a
 * call); without a subscription nothing is unlocked and a checkout is offered instead.
 *
 * Each decision is taken in a transaction that starts by locking the story (lockStory):
 * concurrent requests for one story run one after another and the later ones find it
 * unlocked, so at most one unit is ever used or charged; a unique index allows one
 * unlock charge per story too. The metering call itself is made outside any transaction
 * (metering.ts: reserve, call the provider with the reservation's id, commit or release),
 * so a slow provider holds no lock; requests that find the story's metering under way
 * wait for it to settle, and take it over if its process died.
 */
export async function unlockAdvisory(
  app: AppContext,
  {
    actor,
    access,
    eventUri,
    allowMetering,
  }: { actor: Actor; access: BrandAccess; eventUri: string; allowMetering: boolean },
): Promise<UnlockResult> {
  const payer = access.relation === 'delegated' ? actor.accountId : access.brand.account_id;
  // Waiting on another request's metering is bounded in real time (the clock of a test
  // may stand still): after a lease's length, its reservation is taken over.
  const takeOverAt = performance.now() + app.config.meterLeaseMs;
  for (;;) {
    const step = await inTransaction(app, (app) =>
      decide(app, {
        actor,
        access,
        eventUri,
        payer,
        allowMetering,
        // Inside an enclosing transaction (an Idempotency-Key request) the story stays
        // locked until it ends, so waiting would only hold up the metering it waits on:
        // it takes over at once, and the provider counts the repeated id once.
        takeOver: app.db.isTransaction || performance.now() >= takeOverAt,
      }),
    );
    if ('result' in step) return step.result;
    if ('meter' in step) return meterReservation(app, step.meter, { releaseOnFailure: true });
    if ('wait' in step) {
      await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
      continue;
    }
    const checkoutUrl = await openCheckout(app, payer, step.checkout);
    return {
      ok: false,
      counted: false,
      billed_eur: 0,
      note: allowMetering
        ? `nothing was unlocked or charged: no subscription to meter against; complete the one-off purchase (${UNIT_PRICE_CENTS / 100} EUR) at checkout_url`
        : `nothing was unlocked or charged: no included unit left this month; buy one (${UNIT_PRICE_CENTS / 100} EUR) at checkout_url`,
      checkout_url: checkoutUrl,
    };
  }
}

/** How often a request waiting on another's metering looks again. */
const WAIT_POLL_MS = 25;

type Step =
  | { result: UnlockResult }
  | { checkout: string }
  | { meter: Reservation }
  | { wait: true };

/** What an unlock does next, decided with the story locked. */
async function decide(
  app: AppContext,
  d: {
    actor: Actor;
    access: BrandAccess;
    eventUri: string;
    payer: string;
    allowMetering: boolean;
    takeOver: boolean;
  },
): Promise<Step> {
  const trx = app.db;
  const now = app.clock.now();
  const storyId = await lockStory(
    trx,
    { brandId: d.access.brand.id, eventUri: d.eventUri },
    now.toISOString(),
  );
  const story = await trx
    .selectFrom('stories')
    .select('unlocked_at')
    .where('id', '=', storyId)
    .executeTakeFirstOrThrow();
  if (story.unlocked_at !== null) return { result: ALREADY_UNLOCKED };

  const { used, included } = await includedUnits(app, d.access.brand.id, now);
  if (used < included) {
    await grantUnlock(trx, {
      storyId,
      payer: d.payer,
      brandId: d.access.brand.id,
      actor: actorLabel(d.actor),
      kind: 'included',
      cents: 0,
      externalId: null,
      at: now,
    });
    return {
      result: {
        ok: true,
        counted: true,
        billed_eur: 0,
        note: `included unit used: ${used + 1} of ${included} this month`,
      },
    };
  }

  // A subscription is metered only by the provider it was made with.
  const sub = d.allowMetering ? await meteredSubscription(app, d.payer) : undefined;
  if (!sub) return { checkout: storyId };

  const open = await openReservation(trx, storyId);
  if (open && open.lease_until > now.toISOString() && !d.takeOver) return { wait: true };
  const meter = await reserveMetering(
    app,
    {
      story_id: storyId,
      account_id: d.payer,
      brand_id: d.access.brand.id,
      customer: sub.external_id,
      actor: actorLabel(d.actor),
    },
    open,
  );
  return { meter };
}

/**
 * Included units of the brand's plan and how many were used this calendar month (UTC).
 * In a transaction the brand row is locked first, so two stories of one brand cannot
 * both take its last included unit.
 */
async function includedUnits(app: AppContext, brandId: string, now: Date) {
  const trx = app.db;
  if (trx.isTransaction) await lockRow(trx, 'brands', { id: brandId });
  const brand = trx
    .selectFrom('brands')
    .innerJoin('accounts', 'accounts.id', 'brands.account_id')
    .select(['accounts.plan', 'accounts.trial_plan', 'accounts.trial_ends_at'])
    .where('brands.id', '=', brandId);
  const plan = effectivePlan(await brand.executeTakeFirstOrThrow(), now);
  const { n } = await trx
    .selectFrom('billing_ledger')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('brand_id', '=', brandId)
    .where('period', '=', period(now))
    .where('kind', '=', 'included')
    .executeTakeFirstOrThrow();
  return { used: Number(n), included: app.config.includedUnits[plan] };
}

/**
 * The open checkout of this story for this payer, or a new one. Nothing is charged until
 * the buyer completes it (completeCheckout).
 */
async function openCheckout(app: AppContext, payer: string, storyId: string): Promise<string> {
  const open = () =>
    app.db
      .selectFrom('checkout_sessions')
      .select('url')
      .where('story_id', '=', storyId)
      .where('account_id', '=', payer)
      .where('status', '=', 'open')
      .executeTakeFirst();
  const existing = await open();
  if (existing?.url) return existing.url;

  const id = newId('chk', 26); // the built-in checkout URL is a capability: unguessable
  const story = await app.db
    .selectFrom('stories')
    .select('title')
    .where('id', '=', storyId)
    .executeTakeFirstOrThrow();
  let started: { url: string; externalId: string | null };
  try {
    started = await app.billing.startCheckout({
      checkoutId: id,
      title: `Advisory unlock: ${story.title}`.slice(0, 250),
      amountCents: UNIT_PRICE_CENTS,
      returnUrl: `${app.config.baseUrl}/billing/checkout/${id}`,
    });
  } catch (e) {
    app.log?.error({ err: e }, 'checkout could not be started');
    throw new AppError('unavailable');
  }
  // One open checkout per story and payer: a concurrent request's row wins, and both
  // answer its URL (no exception, so an enclosing PostgreSQL transaction stays usable).
  await app.db
    .insertInto('checkout_sessions')
    .values({
      id,
      account_id: payer,
      story_id: storyId,
      amount_cents: UNIT_PRICE_CENTS,
      currency: CURRENCY,
      status: 'open',
      external_id: started.externalId,
      url: started.url,
      created_at: app.clock.now().toISOString(),
      completed_at: null,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
  return (await open())!.url;
}

/**
 * Completes a one-off purchase exactly once: the first call for an open checkout marks
 * it completed, unlocks the story and records the purchase in the ledger, in one
 * transaction that locks the story first (the same order as an unlock, so the two cannot
 * deadlock); every later call changes nothing. A checkout canceled because the story was
 * unlocked another way is never charged on our own page; if a provider took the payment
 * anyway (Stripe, in a race), the purchase is recorded and flagged for a refund.
 */
export async function completeCheckout(
  app: AppContext,
  checkoutId: string,
  actor: string,
  opts: { paidAtProvider: boolean },
): Promise<{ completed: boolean }> {
  const at = app.clock.now();
  const c = await app.db
    .selectFrom('checkout_sessions as c')
    .leftJoin('stories as s', 's.id', 'c.story_id')
    .select([
      'c.account_id',
      'c.story_id',
      'c.amount_cents',
      'c.currency',
      'c.external_id',
      's.brand_id',
    ])
    .where('c.id', '=', checkoutId)
    .executeTakeFirst();
  if (!c) return { completed: false };
  if (c.brand_id === null) return storyGoneAtCheckout(app, checkoutId, c.account_id, actor, opts);
  const brandId = c.brand_id;
  return inTransaction(app, async (app) => {
    const trx = app.db;
    await lockStory(trx, { id: c.story_id }, at.toISOString());
    const from = opts.paidAtProvider ? ['open', 'canceled'] : ['open'];
    const row = await trx
      .selectFrom('checkout_sessions')
      .select('status')
      .where('id', '=', checkoutId)
      .executeTakeFirstOrThrow();
    if (!from.includes(row.status)) return { completed: false };
    const refundDue = row.status === 'canceled';
    await trx
      .updateTable('checkout_sessions')
      .set({ status: refundDue ? 'refund_due' : 'completed', completed_at: at.toISOString() })
      .where('id', '=', checkoutId)
      .execute();
    const audit = {
      accountId: c.account_id,
      brandId,
      storyId: c.story_id,
      actor,
      at: at.toISOString(),
    };
    await trx
      .insertInto('billing_ledger')
      .values({
        id: newId('led'),
        account_id: c.account_id,
        brand_id: brandId,
        story_id: c.story_id,
        kind: 'purchase',
        amount_cents: c.amount_cents,
        currency: c.currency,
        period: period(at),
        external_id: c.external_id ?? checkoutId,
        created_at: at.toISOString(),
      })
      .execute();
    await writeAudit(trx, {
      ...audit,
      action: refundDue ? 'billing.refund_due' : 'billing.purchased',
      details: { amount_eur: c.amount_cents / 100, checkout: checkoutId },
    });
    if (!refundDue) {
      await trx
        .updateTable('stories')
        .set({ unlocked_at: at.toISOString() })
        .where('id', '=', c.story_id)
        .where('unlocked_at', 'is', null)
        .execute();
      await refreshStoryDocument(trx, c.story_id, at.toISOString());
      await trx
        .updateTable('checkout_sessions')
        .set({ status: 'canceled' })
        .where('story_id', '=', c.story_id)
        .where('status', '=', 'open')
        .execute();
      await writeAudit(trx, {
        ...audit,
        action: 'advisory.unlocked',
        details: { unit: 'purchase' },
      });
    }
    return { completed: true };
  });
}

/**
 * A checkout paid for a story deleted meanwhile (its brand was deleted while the payer
 * was at checkout): there is nothing to unlock, so the payment is flagged for a refund.
 */
async function storyGoneAtCheckout(
  app: AppContext,
  checkoutId: string,
  accountId: string,
  actor: string,
  opts: { paidAtProvider: boolean },
): Promise<{ completed: boolean }> {
  const at = app.clock.now().toISOString();
  const from = opts.paidAtProvider ? ['open', 'canceled'] : ['open'];
  return inTransaction(app, async (app) => {
    const r = await app.db
      .updateTable('checkout_sessions')
      .set({ status: 'refund_due', completed_at: at })
      .where('id', '=', checkoutId)
      .where('status', 'in', from as ('open' | 'canceled')[])
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return { completed: false };
    await writeAudit(app.db, {
      accountId,
      actor,
      action: 'billing.refund_due',
      details: { checkout: checkoutId, reason: 'the story was deleted' },
      at,
    });
    return { completed: true };
  });
}

/** A provider's checkout that expired unpaid: closed, so the next unlock opens a new one. */
export async function expireCheckout(app: AppContext, checkoutId: string): Promise<void> {
  await app.db
    .updateTable('checkout_sessions')
    .set({ status: 'expired' })
    .where('id', '=', checkoutId)
    .where('status', '=', 'open')
    .execute();
}

/** Included units of the brand left this month: what the portal quotes before an unlock. */
export async function includedUnitsLeft(app: AppContext, brandId: string): Promise<number> {
  return (await includedUnitsOf(app, brandId)).left;
}

/** The brand's included units this month, and how many are left. */
export async function includedUnitsOf(app: AppContext, brandId: string) {
  const { used, included } = await includedUnits(app, brandId, app.clock.now());
  return { included, left: Math.max(0, included - used) };
}

/**
 * Whether an unlock past the included units would be metered on the payer's
 * subscription (one active with the billing provider in use): the portal offers that,
 * asked first, instead of a one-off checkout.
 */
export async function hasMeteredSubscription(app: AppContext, payer: string): Promise<boolean> {
  return (await meteredSubscription(app, payer)) !== undefined;
}

/** The payer's active subscription with the billing provider in use: what is metered. */
const meteredSubscription = (app: AppContext, payer: string) =>
  app.db
    .selectFrom('billing_subscriptions')
    .select('external_id')
    .where('account_id', '=', payer)
    .where('status', '=', 'active')
    .where('provider', '=', app.billing.provider)
    .executeTakeFirst();

/** A checkout as its page shows it: the story and brand it unlocks, its price and state. */
export async function checkoutSummary(app: AppContext, id: string) {
  return app.db
    .selectFrom('checkout_sessions as c')
    .innerJoin('stories as s', 's.id', 'c.story_id')
    .innerJoin('brands as b', 'b.id', 's.brand_id')
    .select(['c.id', 'c.status', 'c.amount_cents', 's.title', 's.event_uri', 'b.host'])
    .where('c.id', '=', id)
    .executeTakeFirst();
}
