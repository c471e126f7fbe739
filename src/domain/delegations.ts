import { effectivePlan } from '../auth/effective-plan.js';
import { type AppContext, inTransaction } from '../context.js';
import type { Db } from '../db/database.js';
import { lockRow } from '../db/locks.js';
import type { Plan } from '../db/schema.js';
import { queueEmail } from '../email/outbox.js';
import { conflict, invalid, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { CLIENT_BRANDS } from '../jobs/kinds.js';
import { enqueue } from '../jobs/queue.js';
import { ownerAndAdminEmails, requireAccount } from './accounts.js';
import { writeAudit } from './audit.js';
import { requireBrandByHost } from './brands.js';
import { suspendPartnerShares } from './share-suspension.js';

/**
 * The client grants a partner the right to act on one of its brands: the consent step of
 * the app. Never reachable with an API key.
 */
export async function grantDelegation(
  app: AppContext,
  opts: { partnerId: string; clientId: string; host: string; actor: string },
): Promise<'active'> {
  const partner = await requireAccount(app, opts.partnerId);
  await requireAccount(app, opts.clientId);
  const brand = await requireBrandByHost(app, opts.host);
  if (brand.account_id !== opts.clientId) throw invalid('brand: not a brand of the client account');
  if (partner.id === opts.clientId) throw invalid('partner: must differ from the client');
  if (effectivePlan(partner, app.clock.now()) !== 'agency') {
    throw invalid('partner: client delegation needs the agency plan');
  }
  const now = app.clock.now().toISOString();
  await inTransaction(app, (app) =>
    activateDelegation(app.db, {
      partnerId: partner.id,
      brand: { id: brand.id, account_id: opts.clientId },
      actor: opts.actor,
      details: {},
      at: now,
    }),
  );
  return 'active';
}

/**
 * The client's consent, in the caller's transaction (the operator's grant, or the end of
 * onboarding): an active delegation, a managed (no longer handed-back) client account,
 * the audit entry and its `delegation.activated` event, and the partner's billed
 * quantity recalculated.
 */
export async function activateDelegation(
  trx: Db,
  d: {
    partnerId: string;
    brand: { id: string; account_id: string };
    actor: string;
    details: Record<string, unknown>;
    at: string;
  },
): Promise<void> {
  // The client account's row first: a drop running now decides hand-back after this.
  await lockRow(trx, 'accounts', { id: d.brand.account_id });
  const active = await trx
    .selectFrom('delegations')
    .select('id')
    .where('brand_id', '=', d.brand.id)
    .where('partner_account_id', '=', d.partnerId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (active) throw conflict('delegation: already active for this brand');
  await trx
    .insertInto('delegations')
    .values({
      id: newId('dlg'),
      partner_account_id: d.partnerId,
      client_account_id: d.brand.account_id,
      brand_id: d.brand.id,
      status: 'active',
      granted_at: d.at,
      ended_at: null,
      created_at: d.at,
    })
    .execute();
  await trx
    .updateTable('accounts')
    .set({ state: 'active', trial_ends_at: null, trial_plan: null })
    .where('id', '=', d.brand.account_id)
    .execute();
  await writeAudit(trx, {
    accountId: d.brand.account_id,
    brandId: d.brand.id,
    actor: d.actor,
    action: 'delegation.granted',
    details: { partner: d.partnerId, ...d.details },
    at: d.at,
  });
  await enqueue(trx, CLIENT_BRANDS, { account: d.partnerId }, { now: d.at });
}

/** The reclaim trial of a client account handed back after its last delegation ended. */
export const RECLAIM_TRIAL_DAYS = 7;
/** What the client works with during the trial: the partner plan's rights on its own brands. */
export const RECLAIM_TRIAL_PLAN: Plan = 'partner';

export type ClientAccountOutcome = 'handed_back' | 'retained';

/**
 * The partner drops its delegation of a client brand (terminal). The partner's every
 * operation on the brand answers 404 from the next request (policy reads the delegation
 * each time), and the shares it created on the brand stop. A client account left with
 * no active delegation is handed back to the client with a 7-day reclaim trial of the
 * partner plan (see effective-plan.ts), announced to its owners and admins by email; the
 * partner's billed quantity is recalculated by a job enqueued in the same transaction.
 */
export async function dropDelegation(
  app: AppContext,
  partnerId: string,
  host: string,
  actor: string,
): Promise<{
  clientAccount: ClientAccountOutcome;
  trialEndsAt: string | null;
  clientId: string;
  brandId: string;
}> {
  const now = app.clock.now();
  const at = now.toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    const d = await trx
      .selectFrom('delegations as d')
      .innerJoin('brands as b', 'b.id', 'd.brand_id')
      .select(['d.id', 'd.client_account_id', 'd.brand_id'])
      .where('b.host', '=', host)
      .where('d.partner_account_id', '=', partnerId)
      .where('d.status', '=', 'active')
      .executeTakeFirst();
    if (!d) throw notFound();
    await lockRow(trx, 'accounts', { id: d.client_account_id });
    // Conditional on still being active: of two concurrent drops, one wins.
    const r = await trx
      .updateTable('delegations')
      .set({ status: 'dropped', ended_at: at })
      .where('id', '=', d.id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) throw notFound();
    await suspendPartnerShares(trx, { partnerId, brandId: d.brand_id, actor, at });
    const trialEndsAt = await handBackIfAlone(app, d.client_account_id, now);
    const clientAccount: ClientAccountOutcome = trialEndsAt ? 'handed_back' : 'retained';
    await writeAudit(trx, {
      accountId: partnerId,
      brandId: d.brand_id,
      actor,
      action: 'delegation.dropped',
      details: { client: d.client_account_id, client_account: clientAccount },
      at,
    });
    await enqueue(trx, CLIENT_BRANDS, { account: partnerId }, { now: at });
    return { clientAccount, trialEndsAt, clientId: d.client_account_id, brandId: d.brand_id };
  });
}

/**
 * The client revokes a partner's delegation from its own side of the app (terminal), and
 * the shares the partner created on the brand stop. No reclaim trial: the trial eases
 * the hand-back of a client its partner let go, while a client that revokes chose to
 * leave and was in charge of its account all along; it keeps its own plan.
 */
export async function revokeDelegation(
  app: AppContext,
  {
    clientId,
    partnerId,
    host,
    actor,
  }: { clientId: string; partnerId: string; host: string; actor: string },
): Promise<'revoked'> {
  const at = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    // The same lock as a drop and an activation: a revoke and a drop at once end the
    // delegation once, and a share or guest the partner writes meanwhile waits for it.
    await lockRow(trx, 'accounts', { id: clientId });
    const d = await trx
      .selectFrom('delegations as d')
      .innerJoin('brands as b', 'b.id', 'd.brand_id')
      .select(['d.id', 'd.brand_id'])
      .where('b.host', '=', host)
      .where('d.client_account_id', '=', clientId)
      .where('d.partner_account_id', '=', partnerId)
      .where('d.status', 'in', ['active', 'pending'])
      .executeTakeFirst();
    if (!d) throw notFound();
    const r = await trx
      .updateTable('delegations')
      .set({ status: 'revoked', ended_at: at })
      .where('id', '=', d.id)
      .where('status', 'in', ['active', 'pending'])
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) throw notFound();
    await suspendPartnerShares(trx, { partnerId, brandId: d.brand_id, actor, at });
    await writeAudit(trx, {
      accountId: clientId,
      brandId: d.brand_id,
      actor,
      action: 'delegation.revoked',
      details: { partner: partnerId },
      at,
    });
    await enqueue(trx, CLIENT_BRANDS, { account: partnerId }, { now: at });
    return 'revoked' as const;
  });
}

/**
 * Inside a transaction that writes on a brand the caller reached through a delegation:
 * takes the client account's lock (the one a drop or revoke takes first) and checks the
 * delegation is still active, so nothing the partner writes slips past the end of its
 * delegation unseen by it. A brand of the caller's own is left alone.
 */
export async function holdDelegation(
  trx: Db,
  access: { brand: { id: string; account_id: string }; relation: 'own' | 'delegated' },
  partnerId: string,
): Promise<void> {
  if (access.relation === 'own') return;
  await lockRow(trx, 'accounts', { id: access.brand.account_id });
  const active = await trx
    .selectFrom('delegations')
    .select('id')
    .where('brand_id', '=', access.brand.id)
    .where('partner_account_id', '=', partnerId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (!active) throw notFound();
}

/**
 * Hands the client account back when no active delegation is left: the reclaim trial
 * starts, and its owners and admins are told when it ends. Answers the trial's end, or
 * null when another delegation still manages the account.
 */
async function handBackIfAlone(
  app: AppContext,
  clientId: string,
  now: Date,
): Promise<string | null> {
  const trx = app.db;
  const other = await trx
    .selectFrom('delegations')
    .select('id')
    .where('client_account_id', '=', clientId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (other) return null;
  const trialEnds = new Date(now.getTime() + RECLAIM_TRIAL_DAYS * 86_400_000).toISOString();
  await trx
    .updateTable('accounts')
    .set({ state: 'handed_back', trial_ends_at: trialEnds, trial_plan: RECLAIM_TRIAL_PLAN })
    .where('id', '=', clientId)
    .execute();
  const admins = await ownerAndAdminEmails(trx, clientId);
  const ends = `${trialEnds.slice(0, 10)} ${trialEnds.slice(11, 16)} UTC`;
  for (const email of admins) {
    await queueEmail(
      trx,
      {
        accountId: clientId,
        to: email,
        kind: 'notice',
        subject: `Your account is back in your hands: partner plan trial until ${trialEnds.slice(0, 10)}`,
        text: [
          'The partner that managed your brands here no longer does: the account is yours again.',
          `Until ${ends}, a trial of the ${RECLAIM_TRIAL_PLAN} plan gives you its working rights on your brands: unlocking advisories with the included units, assignments, Brand Notes, shares and API keys.`,
          `After ${ends}, the account continues on its own plan; nothing is deleted.`,
          `Sign in: ${app.config.baseUrl}/signin`,
        ].join('\n\n'),
      },
      now.toISOString(),
    );
  }
  return trialEnds;
}

/** The client's side of delegations: the partners acting (or who acted) on its brands. */
export async function listPartners(app: AppContext, clientAccountId: string) {
  return app.db
    .selectFrom('delegations as d')
    .innerJoin('brands as b', 'b.id', 'd.brand_id')
    .innerJoin('accounts as p', 'p.id', 'd.partner_account_id')
    .select([
      'b.host as brand',
      'p.id as partner',
      'p.name as partner_name',
      'd.status',
      'd.created_at',
      'd.ended_at',
    ])
    .where('d.client_account_id', '=', clientAccountId)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .execute();
}

/** A partner's delegations, newest first, within a scoped key's hosts. */
export async function partnerDelegations(
  app: AppContext,
  partnerId: string,
  scope: readonly string[] | null,
) {
  let q = app.db
    .selectFrom('delegations as d')
    .innerJoin('brands as b', 'b.id', 'd.brand_id')
    .select(['b.host as brand_key', 'd.status', 'd.client_account_id as client'])
    .where('d.partner_account_id', '=', partnerId);
  if (scope !== null) q = q.where('b.host', 'in', scope.length ? scope : ['']);
  return q.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').execute();
}
