import { hashPassword, verifyPassword } from '../auth/passwords.js';
import { signLink, verifyLink } from '../auth/signed-links.js';
import type { AppContext } from '../context.js';
import { type Db, withTransaction } from '../db/database.js';
import { queueEmail } from '../email/outbox.js';
import { AppError, conflict, invalid } from '../errors.js';
import { newId } from '../ids.js';
import { enqueue } from '../jobs/queue.js';
import { writeAudit } from './audit.js';
import { findInvite } from './delegation-invites.js';

/** How long the email confirmation link of onboarding works. */
const CONFIRM_TTL_MS = 24 * 3_600_000;

export type Invite = NonNullable<Awaited<ReturnType<typeof findInvite>>>;

/** The invite behind an onboarding token, whatever its state, or undefined. */
export const loadInvite = (app: AppContext, token: string) =>
  findInvite(app.db, token, app.clock.now().toISOString());

/** The email proves the brand: it must be on the brand's own domain or a subdomain of it. */
export function emailOnBrandDomain(email: string, host: string): boolean {
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return domain === host || domain.endsWith(`.${host}`);
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The client signs up (or signs in) through the invite: the account, its owner and the
 * brand are created when new, with a pending delegation to the partner; the person is
 * sent a link that confirms the email. Nothing is active before that link and consent.
 */
export async function startOnboarding(
  app: AppContext,
  invite: Invite,
  form: { email: string; password: string },
): Promise<{ email: string }> {
  if (invite.status !== 'pending') throw conflict(`invite is ${invite.status}`);
  const email = form.email.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 254) throw invalid('email: must be an email address');
  if (!emailOnBrandDomain(email, invite.brand_host)) {
    throw invalid(`email: must be an address at ${invite.brand_host} (or one of its subdomains)`);
  }
  if (form.password.length < 8 || form.password.length > 1024) {
    throw invalid('password: must be 8 to 1024 characters');
  }
  const at = app.clock.now().toISOString();
  const existing = await app.db
    .selectFrom('users')
    .select(['id', 'password_hash'])
    .where('email', '=', email)
    .executeTakeFirst();
  if (
    existing &&
    !(existing.password_hash && (await verifyPassword(existing.password_hash, form.password)))
  ) {
    throw new AppError('unauthenticated', 'this email has an account: enter its password');
  }
  const passwordHash = existing ? null : await hashPassword(form.password);

  const userId = await withTransaction(app.db, async (trx) => {
    const brand = await trx
      .selectFrom('brands')
      .select(['id', 'account_id'])
      .where('host', '=', invite.brand_host)
      .executeTakeFirst();
    let accountId: string;
    let userId = existing?.id;
    if (brand) {
      // An existing customer: only its owner or an admin may delegate the brand.
      if (brand.account_id === invite.partner_account_id)
        throw invalid('brand: belongs to the partner');
      const member = userId
        ? await trx
            .selectFrom('memberships')
            .select('role')
            .where('account_id', '=', brand.account_id)
            .where('user_id', '=', userId)
            .where('status', '=', 'active')
            .executeTakeFirst()
        : undefined;
      if (!member || member.role === 'member') {
        throw new AppError(
          'forbidden',
          `${invite.brand_host} already has an account here: its owner or an admin must accept`,
        );
      }
      accountId = brand.account_id;
    } else {
      accountId = newId('acc');
      await trx
        .insertInto('accounts')
        .values({
          id: accountId,
          name: invite.brand_host,
          plan: 'pro',
          state: 'active',
          trial_ends_at: null,
          created_at: at,
        })
        .execute();
      if (!userId) {
        userId = newId('usr');
        await trx
          .insertInto('users')
          .values({
            id: userId,
            email,
            name: null,
            password_hash: passwordHash,
            email_verified_at: null,
            created_at: at,
          })
          .execute();
      }
      await trx
        .insertInto('memberships')
        .values({
          account_id: accountId,
          user_id: userId,
          role: 'owner',
          status: 'active',
          created_at: at,
        })
        .execute();
      await trx
        .insertInto('brands')
        .values({
          id: newId('brd'),
          account_id: accountId,
          host: invite.brand_host,
          name: invite.brand_host,
          verified: 0,
          verified_at: null,
          aliases: '[]',
          created_at: at,
        })
        .execute();
    }
    await trx
      .updateTable('delegation_invites')
      .set({ client_account_id: accountId, updated_at: at })
      .where('id', '=', invite.id)
      .execute();
    // The partner sees the delegation as pending until the client consents.
    const brandId =
      brand?.id ??
      (
        await trx
          .selectFrom('brands')
          .select('id')
          .where('host', '=', invite.brand_host)
          .executeTakeFirstOrThrow()
      ).id;
    const open = await trx
      .selectFrom('delegations')
      .select('id')
      .where('brand_id', '=', brandId)
      .where('partner_account_id', '=', invite.partner_account_id)
      .where('status', 'in', ['pending', 'active'])
      .executeTakeFirst();
    if (!open) {
      await trx
        .insertInto('delegations')
        .values({
          id: newId('dlg'),
          partner_account_id: invite.partner_account_id,
          client_account_id: accountId,
          brand_id: brandId,
          status: 'pending',
          granted_at: null,
          ended_at: null,
          created_at: at,
        })
        .execute();
    }
    return userId!;
  });

  const link = await signLink(app, 'onboard', { i: invite.id, u: userId }, CONFIRM_TTL_MS);
  await queueEmail(
    app.db,
    {
      accountId: null,
      to: email,
      kind: 'onboarding',
      subject: `Confirm your email to connect ${invite.brand_host} with ${invite.partner_name}`,
      text: [
        `${invite.partner_name} invited you to connect ${invite.brand_host} to Stories.`,
        '',
        `Confirm your email and review the request here (the link works for 24 hours): ${app.config.baseUrl}/onboard/confirm/${link}`,
      ].join('\n'),
    },
    at,
  );
  return { email };
}

export interface Confirmation {
  invite: Invite;
  userId: string;
  link: string;
}

/**
 * The emailed link: proves the email, so the user is verified and the brand with it
 * (the address is on the brand's domain). Answers what the consent page needs.
 */
export async function confirmOnboarding(
  app: AppContext,
  link: string,
): Promise<Confirmation | null> {
  const data = await verifyLink(app, 'onboard', link);
  if (!data || typeof data.i !== 'string' || typeof data.u !== 'string') return null;
  const at = app.clock.now().toISOString();
  const invite = await app.db
    .selectFrom('delegation_invites as i')
    .innerJoin('accounts as p', 'p.id', 'i.partner_account_id')
    .selectAll('i')
    .select('p.name as partner_name')
    .where('i.id', '=', data.i)
    .executeTakeFirst();
  if (invite?.status !== 'pending' || invite.expires_at <= at || !invite.client_account_id) {
    return null;
  }
  await withTransaction(app.db, async (trx) => {
    await trx
      .updateTable('users')
      .set({ email_verified_at: at })
      .where('id', '=', data.u as string)
      .where('email_verified_at', 'is', null)
      .execute();
    await trx
      .updateTable('brands')
      .set({ verified: 1, verified_at: at })
      .where('host', '=', invite.brand_host)
      .where('account_id', '=', invite.client_account_id!)
      .where('verified', '=', 0)
      .execute();
  });
  return { invite: invite as Invite, userId: data.u, link };
}

/**
 * The client's answer. Approving activates the delegation and uses the invite; declining
 * marks it declined. Either way the answer is where to send the browser: the partner's
 * return_url with the brand and the outcome.
 */
export async function decideOnboarding(
  app: AppContext,
  c: Confirmation,
  approve: boolean,
): Promise<string> {
  const at = app.clock.now().toISOString();
  const { invite } = c;
  await withTransaction(app.db, async (trx) => {
    const r = await trx
      .updateTable('delegation_invites')
      .set({ status: approve ? 'used' : 'declined', updated_at: at })
      .where('id', '=', invite.id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) throw conflict('invite is no longer pending');
    if (approve) await activate(trx, invite, `user:${c.userId}`, at);
    else await refusePending(trx, invite, at);
  });
  return returnTo(invite, approve ? 'approved' : 'declined');
}

/** Declining straight from the invite page. */
export async function declineInvite(app: AppContext, invite: Invite): Promise<string> {
  const at = app.clock.now().toISOString();
  await withTransaction(app.db, async (trx) => {
    const r = await trx
      .updateTable('delegation_invites')
      .set({ status: 'declined', updated_at: at })
      .where('id', '=', invite.id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) throw conflict(`invite is ${invite.status}`);
    await refusePending(trx, invite, at);
  });
  return returnTo(invite, 'declined');
}

/** A pending delegation the client declines ends as revoked (the client's refusal). */
async function refusePending(trx: Db, invite: Invite, at: string) {
  await trx
    .updateTable('delegations')
    .set({ status: 'revoked', ended_at: at })
    .where('partner_account_id', '=', invite.partner_account_id)
    .where('status', '=', 'pending')
    .where('brand_id', 'in', (eb) =>
      eb.selectFrom('brands').select('id').where('host', '=', invite.brand_host),
    )
    .execute();
}

async function activate(trx: Db, invite: Invite, actor: string, at: string) {
  const brand = await trx
    .selectFrom('brands')
    .select(['id', 'account_id'])
    .where('host', '=', invite.brand_host)
    .executeTakeFirstOrThrow();
  const promoted = await trx
    .updateTable('delegations')
    .set({ status: 'active', granted_at: at })
    .where('brand_id', '=', brand.id)
    .where('partner_account_id', '=', invite.partner_account_id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  const active = await trx
    .selectFrom('delegations')
    .select('id')
    .where('brand_id', '=', brand.id)
    .where('partner_account_id', '=', invite.partner_account_id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (Number(promoted.numUpdatedRows) === 0 && !active) {
    await trx
      .insertInto('delegations')
      .values({
        id: newId('dlg'),
        partner_account_id: invite.partner_account_id,
        client_account_id: brand.account_id,
        brand_id: brand.id,
        status: 'active',
        granted_at: at,
        ended_at: null,
        created_at: at,
      })
      .execute();
  }
  // A handed-back account that delegates again is managed again.
  await trx
    .updateTable('accounts')
    .set({ state: 'active', trial_ends_at: null })
    .where('id', '=', brand.account_id)
    .execute();
  await writeAudit(trx, {
    accountId: brand.account_id,
    brandId: brand.id,
    actor,
    action: 'delegation.granted',
    details: { partner: invite.partner_account_id, invite: invite.id },
    at,
  });
  await enqueue(trx, 'billing.client_brands', { account: invite.partner_account_id }, { now: at });
}

function returnTo(invite: Invite, outcome: 'approved' | 'declined'): string {
  const url = new URL(invite.return_url);
  url.searchParams.set('brand', invite.brand_host);
  url.searchParams.set('outcome', outcome);
  return url.href;
}
