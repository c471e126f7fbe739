import { hashPassword } from '../auth/passwords.js';
import { signLink, verifyLink } from '../auth/signed-links.js';
import { type AppContext, inTransaction } from '../context.js';
import type { Db } from '../db/database.js';
import { queueEmail } from '../email/outbox.js';
import { AppError, conflict, invalid } from '../errors.js';
import { newId } from '../ids.js';
import { writeAudit } from './audit.js';
import {
  emailOnBrandDomain,
  isMailProviderDomain,
  registrableDomain,
  requireBrandHost,
} from './brand-host.js';
import { findInvite } from './delegation-invites.js';
import { activateDelegation } from './delegations.js';

/** How long the email confirmation link of onboarding works. */
const CONFIRM_TTL_MS = 24 * 3_600_000;

export type Invite = NonNullable<Awaited<ReturnType<typeof findInvite>>>;

/** The invite behind an onboarding token, whatever its state, or undefined. */
export const loadInvite = (app: AppContext, token: string) =>
  findInvite(app.db, token, app.clock.now().toISOString());

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The sign-up form of an invite: an email only. Nothing is created here but a pending
 * sign-up and the email with its confirmation link. The account, its owner and the brand
 * come into existence only when that link is used and the person consents, and a new
 * user's password is chosen there, by whoever holds the mailbox: holding the invite link
 * (the partner does) gives no way to create or take over anyone's account.
 */
export async function startOnboarding(
  app: AppContext,
  invite: Invite,
  form: { email: string },
): Promise<{ email: string }> {
  if (invite.status !== 'pending') throw conflict(`invite is ${invite.status}`);
  // Invites made before hosts were checked may name a suffix such as co.uk: never a brand.
  requireBrandHost(invite.brand_host, 'brand');
  if (isMailProviderDomain(invite.brand_host)) {
    throw invalid(`brand: ${invite.brand_host} is a mailbox provider; its addresses prove nothing`);
  }
  const email = form.email.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 254) throw invalid('email: must be an email address');
  if (!emailOnBrandDomain(email, invite.brand_host)) {
    throw invalid(
      `email: must be an address at ${registrableDomain(invite.brand_host)} (or one of its subdomains)`,
    );
  }
  const now = app.clock.now();
  const at = now.toISOString();
  const id = newId('obs');
  await app.db
    .insertInto('onboarding_signups')
    .values({
      id,
      invite_id: invite.id,
      email,
      created_at: at,
      expires_at: new Date(now.getTime() + CONFIRM_TTL_MS).toISOString(),
      used_at: null,
    })
    .execute();
  const link = await signLink(app, 'onboard', { s: id }, CONFIRM_TTL_MS);
  await queueEmail(
    app.db,
    {
      accountId: null,
      to: email,
      kind: 'onboarding',
      // White-label, as the onboarding pages are: the partner's name as the sender and in
      // the text, "Stories" once in the small print.
      fromName: invite.partner_name,
      subject: `Confirm your email to connect ${invite.brand_host} with ${invite.partner_name}`,
      text: [
        `${invite.partner_name} invited you to connect ${invite.brand_host} with them, so that they can follow its media coverage and act on it with you.`,
        '',
        `Confirm your email and review the request here (the link works for 24 hours): ${app.config.baseUrl}/onboard/confirm/${link}`,
        '',
        'If you did not ask for this, ignore this email: nothing happens without you.',
        '',
        '-- ',
        'powered by Stories',
      ].join('\n'),
    },
    at,
  );
  return { email };
}

export interface Confirmation {
  invite: Invite;
  signup: { id: string; email: string };
  /** Whether the email has an account already (else the consent page asks a password). */
  hasAccount: boolean;
  link: string;
}

/**
 * The emailed link, read: the invite and sign-up it confirms, while both are open (a
 * closed one gives only its invite, for the partner's look). Reading it changes nothing;
 * only the decision posted from the consent page does.
 */
export async function readConfirmation(
  app: AppContext,
  link: string,
): Promise<Confirmation | { closed: Invite } | null> {
  const data = await verifyLink(app, 'onboard', link);
  if (!data || typeof data.s !== 'string') return null;
  const at = app.clock.now().toISOString();
  const row = await app.db
    .selectFrom('onboarding_signups as o')
    .innerJoin('delegation_invites as i', 'i.id', 'o.invite_id')
    .innerJoin('accounts as p', 'p.id', 'i.partner_account_id')
    .leftJoin('brand_kits as k', 'k.account_id', 'i.partner_account_id')
    .selectAll('i')
    .select((eb) => [
      eb.fn.coalesce('k.display_name', 'p.name').as('partner_name'),
      'p.name as partner_account_name',
      'k.logo_url as partner_logo_url',
      'k.accent_color as partner_accent',
      'o.id as signup_id',
      'o.email',
      'o.used_at',
      'o.expires_at as signup_expires_at',
    ])
    .where('o.id', '=', data.s)
    .executeTakeFirst();
  if (!row) return null;
  const { signup_id, email, used_at, signup_expires_at, ...invite } = row;
  // A genuine link that no longer works still shows whose invitation it was.
  if (used_at || signup_expires_at <= at) return { closed: invite as Invite };
  if (invite.status !== 'pending' || invite.expires_at <= at) return { closed: invite as Invite };
  const user = await app.db
    .selectFrom('users')
    .select('id')
    .where('email', '=', email)
    .executeTakeFirst();
  return { invite: invite as Invite, signup: { id: signup_id, email }, hasAccount: !!user, link };
}

/**
 * The client's answer, in one transaction. Approving proves the email: the user is created
 * (or found) verified, the brand is created verified in a new account owned by them (or,
 * for a brand already here, they must be its account's owner or an admin), the delegation
 * becomes active and the invite used. Declining marks the invite declined and creates
 * nothing. Either way the answer is the partner's return_url with the brand and outcome.
 */
export async function decideOnboarding(
  app: AppContext,
  c: Confirmation,
  decision: { approve: boolean; password: string },
): Promise<string> {
  const { approve } = decision;
  const at = app.clock.now().toISOString();
  const { invite, signup } = c;
  // Approving creates or verifies the brand: the same rules as every other way in.
  if (approve) {
    requireBrandHost(invite.brand_host, 'brand');
    if (
      isMailProviderDomain(invite.brand_host) ||
      !emailOnBrandDomain(signup.email, invite.brand_host)
    ) {
      throw invalid(`email: ${signup.email} does not speak for ${invite.brand_host}`);
    }
  }
  const passwordHash =
    approve && !c.hasAccount ? await hashPassword(checkPassword(decision.password)) : null;
  await inTransaction(app, async (app) => {
    const trx = app.db;
    const used = await trx
      .updateTable('onboarding_signups')
      .set({ used_at: at })
      .where('id', '=', signup.id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    const r = await trx
      .updateTable('delegation_invites')
      .set({ status: approve ? 'used' : 'declined', updated_at: at })
      .where('id', '=', invite.id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(used.numUpdatedRows) === 0 || Number(r.numUpdatedRows) === 0) {
      throw conflict('invite is no longer pending');
    }
    if (!approve) return;
    const userId = await verifiedUser(trx, signup.email, passwordHash, at);
    const brand = await clientBrand(trx, invite, userId, at);
    await activateDelegation(trx, {
      partnerId: invite.partner_account_id,
      brand,
      actor: `user:${userId}`,
      details: { invite: invite.id },
      at,
    });
  });
  return returnTo(invite, approve ? 'approved' : 'declined');
}

/** Declining straight from the invite page. */
export async function declineInvite(app: AppContext, invite: Invite): Promise<string> {
  const at = app.clock.now().toISOString();
  const r = await app.db
    .updateTable('delegation_invites')
    .set({ status: 'declined', updated_at: at })
    .where('id', '=', invite.id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) throw conflict(`invite is ${invite.status}`);
  return returnTo(invite, 'declined');
}

function checkPassword(password: string): string {
  if (password.length < 8 || password.length > 1024) {
    throw invalid('password: must be 8 to 1024 characters');
  }
  return password;
}

/** The user of a confirmed sign-up: created now, or an existing one whose email is now proved. */
async function verifiedUser(
  trx: Db,
  email: string,
  passwordHash: string | null,
  at: string,
): Promise<string> {
  const existing = await trx
    .selectFrom('users')
    .select('id')
    .where('email', '=', email)
    .executeTakeFirst();
  if (existing) {
    await trx
      .updateTable('users')
      .set({ email_verified_at: at })
      .where('id', '=', existing.id)
      .where('email_verified_at', 'is', null)
      .execute();
    return existing.id;
  }
  if (!passwordHash) throw invalid('password: choose one for your new account');
  const id = newId('usr');
  await trx
    .insertInto('users')
    .values({
      id,
      email,
      name: null,
      password_hash: passwordHash,
      email_verified_at: at,
      created_at: at,
    })
    .execute();
  return id;
}

/**
 * The brand being delegated, verified by the email proof. A new brand gets a new account
 * owned by the person; a brand already here needs its account's owner or an admin.
 */
async function clientBrand(trx: Db, invite: Invite, userId: string, at: string) {
  const brand = await trx
    .selectFrom('brands')
    .select(['id', 'account_id'])
    .where('host', '=', invite.brand_host)
    .executeTakeFirst();
  if (brand) {
    if (brand.account_id === invite.partner_account_id)
      throw invalid('brand: belongs to the partner');
    const member = await trx
      .selectFrom('memberships')
      .select('role')
      .where('account_id', '=', brand.account_id)
      .where('user_id', '=', userId)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (!member || member.role === 'member') {
      throw new AppError(
        'forbidden',
        `${invite.brand_host} already has an account here: its owner or an admin must accept`,
      );
    }
    await trx
      .updateTable('brands')
      .set({ verified: 1, verified_at: at })
      .where('id', '=', brand.id)
      .where('verified', '=', 0)
      .execute();
    return brand;
  }
  const accountId = newId('acc');
  const brandId = newId('brd');
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
      id: brandId,
      account_id: accountId,
      host: invite.brand_host,
      name: invite.brand_host,
      verified: 1,
      verified_at: at,
      aliases: '[]',
      created_at: at,
    })
    .execute();
  await writeAudit(trx, { accountId, actor: `user:${userId}`, action: 'account.created', at });
  return { id: brandId, account_id: accountId };
}

function returnTo(invite: Invite, outcome: 'approved' | 'declined'): string {
  const url = new URL(invite.return_url);
  url.searchParams.set('brand', invite.brand_host);
  url.searchParams.set('outcome', outcome);
  return url.href;
}
