import { CURRENCY, UNIT_PRICE_CENTS } from '../billing/billing.js';
import type { AppContext } from '../context.js';
import { type Db, withTransaction } from '../db/database.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { type Actor, actorLabel, type BrandAccess } from '../policy.js';
import { writeAudit } from './audit.js';
import { findStoryId } from './stories.js';

/** The advisory trigger result of spec 2.10. */
export interface UnlockResult {
  ok: boolean;
  /** Whether one of the brand's included monthly units was consumed. */
  counted: boolean;
  billed_eur: number;
  note: string;
  checkout_url?: string;
}

const ALREADY: UnlockResult = {
  ok: true,
  counted: false,
  billed_eur: 0,
  note: 'already unlocked; nothing was charged',
};

/** Thrown inside the unlock transaction to roll it back and offer a checkout instead. */
class CheckoutNeeded extends Error {}

const period = (at: Date) => at.toISOString().slice(0, 7);

/**
 * Unlocks a story's advisory (spec 3.2). The included units of the brand's plan are used
 * first; beyond them one unit is metered on the payer's subscription (the partner, for a
 * delegated brand), unless `allowMetering` is false (the MCP user session never charges);
 * without a subscription nothing is unlocked and a checkout is offered instead.
 *
 * Everything happens in one transaction that starts by claiming the story
 * (`unlocked_at IS NULL`): concurrent requests for one story wait for it and then find it
 * unlocked, so at most one unit is ever used or charged. A failed metering call rolls the
 * claim back (402, nothing unlocked); a unique index allows one unlock charge per story.
 */
export async function unlockAdvisory(
  app: AppContext,
  actor: Actor,
  access: BrandAccess,
  eventUri: string,
  opts: { allowMetering: boolean },
): Promise<UnlockResult> {
  const storyId = await findStoryId(app.db, access.brand.id, eventUri);
  const payer = access.relation === 'delegated' ? actor.accountId : access.brand.account_id;
  const now = app.clock.now();
  const at = now.toISOString();
  const audit = {
    accountId: payer,
    brandId: access.brand.id,
    storyId,
    actor: actorLabel(actor),
    at,
  };

  try {
    return await withTransaction(app.db, async (trx) => {
      const claimed = await trx
        .updateTable('stories')
        .set({ unlocked_at: at, last_activity_at: at })
        .where('id', '=', storyId)
        .where('unlocked_at', 'is', null)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 0) return ALREADY;

      const { used, included } = await includedUnits(app, trx, access.brand.id, now);
      if (used < included) {
        await trx.insertInto('billing_ledger').values(ledgerRow('included', 0)).execute();
        await writeAudit(trx, {
          ...audit,
          action: 'advisory.unlocked',
          details: { unit: 'included' },
        });
        return {
          ok: true,
          counted: true,
          billed_eur: 0,
          note: `included unit used: ${used + 1} of ${included} this month`,
        };
      }

      const sub = opts.allowMetering
        ? await trx
            .selectFrom('billing_subscriptions')
            .select(['external_id', 'provider'])
            .where('account_id', '=', payer)
            .where('status', '=', 'active')
            .executeTakeFirst()
        : undefined;
      if (!sub) throw new CheckoutNeeded();

      let externalId: string;
      try {
        ({ externalId } = await app.billing.meter({
          identifier: `unlock_${storyId}`,
          customer: sub.external_id,
          at: now,
        }));
      } catch (e) {
        app.log?.warn({ err: e, story: storyId }, 'metering failed');
        throw new AppError('payment_failed');
      }
      await trx
        .insertInto('billing_ledger')
        .values({ ...ledgerRow('metered', UNIT_PRICE_CENTS), external_id: externalId })
        .execute();
      await writeAudit(trx, {
        ...audit,
        action: 'advisory.unlocked',
        details: { unit: 'metered' },
      });
      await writeAudit(trx, {
        ...audit,
        action: 'billing.charged',
        details: { amount_eur: UNIT_PRICE_CENTS / 100, provider: app.billing.provider },
      });
      return {
        ok: true,
        counted: false,
        billed_eur: UNIT_PRICE_CENTS / 100,
        note: `included units used up this month: ${UNIT_PRICE_CENTS / 100} EUR metered on the subscription`,
      };
    });
  } catch (e) {
    if (!(e instanceof CheckoutNeeded)) throw e;
  }
  const checkoutUrl = await openCheckout(app, payer, storyId);
  return {
    ok: false,
    counted: false,
    billed_eur: 0,
    note: opts.allowMetering
      ? `nothing was unlocked or charged: no subscription to meter against; complete the one-off purchase (${UNIT_PRICE_CENTS / 100} EUR) at checkout_url`
      : `nothing was unlocked or charged: no included unit left this month; buy one (${UNIT_PRICE_CENTS / 100} EUR) at checkout_url`,
    checkout_url: checkoutUrl,
  };

  function ledgerRow(kind: 'included' | 'metered', cents: number) {
    return {
      id: newId('led'),
      account_id: payer,
      brand_id: access.brand.id,
      story_id: storyId,
      kind,
      amount_cents: cents,
      currency: CURRENCY,
      period: period(now),
      external_id: null,
      created_at: at,
    };
  }
}

/**
 * Included units of the brand's plan and how many were used this calendar month (UTC).
 * On PostgreSQL the brand row is locked first, so two stories of one brand cannot both
 * take its last included unit; SQLite has a single writer, which holds already.
 */
async function includedUnits(app: AppContext, trx: Db, brandId: string, now: Date) {
  let brand = trx
    .selectFrom('brands')
    .innerJoin('accounts', 'accounts.id', 'brands.account_id')
    .select('accounts.plan')
    .where('brands.id', '=', brandId);
  if (app.config.database.dialect === 'postgres') brand = brand.forUpdate('brands');
  const { plan } = await brand.executeTakeFirstOrThrow();
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
  try {
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
      .execute();
    return started.url;
  } catch (e) {
    // A concurrent request opened one first (one open checkout per story and payer).
    const winner = await open();
    if (winner) return winner.url;
    throw e;
  }
}

/**
 * Completes a one-off purchase exactly once: the first call marks the checkout
 * completed, unlocks the story (if it still is locked) and records the purchase in the
 * ledger, all in one transaction; every later call changes nothing.
 */
export async function completeCheckout(
  app: AppContext,
  checkoutId: string,
  actor: string,
): Promise<{ completed: boolean }> {
  const at = app.clock.now();
  return withTransaction(app.db, async (trx) => {
    const done = await trx
      .updateTable('checkout_sessions')
      .set({ status: 'completed', completed_at: at.toISOString() })
      .where('id', '=', checkoutId)
      .where('status', '=', 'open')
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) return { completed: false };
    const c = await trx
      .selectFrom('checkout_sessions as c')
      .innerJoin('stories as s', 's.id', 'c.story_id')
      .select([
        'c.account_id',
        'c.story_id',
        'c.amount_cents',
        'c.currency',
        'c.external_id',
        's.brand_id',
      ])
      .where('c.id', '=', checkoutId)
      .executeTakeFirstOrThrow();
    const unlocked = await trx
      .updateTable('stories')
      .set({ unlocked_at: at.toISOString(), last_activity_at: at.toISOString() })
      .where('id', '=', c.story_id)
      .where('unlocked_at', 'is', null)
      .executeTakeFirst();
    await trx
      .insertInto('billing_ledger')
      .values({
        id: newId('led'),
        account_id: c.account_id,
        brand_id: c.brand_id,
        story_id: c.story_id,
        kind: 'purchase',
        amount_cents: c.amount_cents,
        currency: c.currency,
        period: period(at),
        external_id: c.external_id ?? checkoutId,
        created_at: at.toISOString(),
      })
      .execute();
    const audit = {
      accountId: c.account_id,
      brandId: c.brand_id,
      storyId: c.story_id,
      actor,
      at: at.toISOString(),
    };
    await writeAudit(trx, {
      ...audit,
      action: 'billing.purchased',
      details: { amount_eur: c.amount_cents / 100, checkout: checkoutId },
    });
    if (Number(unlocked.numUpdatedRows) > 0) {
      await writeAudit(trx, {
        ...audit,
        action: 'advisory.unlocked',
        details: { unit: 'purchase' },
      });
    }
    return { completed: true };
  });
}
