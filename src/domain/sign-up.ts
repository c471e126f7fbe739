import { hash } from 'node:crypto';
import { hashPassword } from '../auth/passwords.js';
import { signLink, verifyLink } from '../auth/signed-links.js';
import { type AppContext, inTransaction } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import type { Plan } from '../db/schema.js';
import { queueEmail } from '../email/outbox.js';
import { invalid } from '../errors.js';
import { newId } from '../ids.js';
import { writeAudit } from './audit.js';

const CONFIRM_TTL_MS = 48 * 3600_000;
const RESET_TTL_MS = 3600_000;
export const PLANS: readonly Plan[] = ['starter', 'pro', 'partner', 'agency'];

export function checkNewPassword(password: string): void {
  if (password.length < 10) throw invalid('password: must be at least 10 characters');
  if (password.length > 200) throw invalid('password: must be at most 200 characters');
}

/**
 * Asks for a new team: nothing is stored, the emailed link carries the request (signed).
 * The password is chosen when the link is opened, by whoever holds the mailbox, so
 * signing up with someone else's address gives no way into what they later create. An
 * address that already has an account gets a notice instead, and the answer is the
 * same, so sign-up never tells who has an account.
 */
export async function signUp(
  app: AppContext,
  input: { team: string; email: string; plan: Plan },
): Promise<void> {
  const email = input.email.trim().toLowerCase();
  const team = input.team.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) {
    throw invalid('email: must be an email address');
  }
  if (team.length < 2 || team.length > 80) throw invalid('team: must be 2 to 80 characters');
  if (!PLANS.includes(input.plan)) throw invalid('plan: must be one of the plans');
  const now = app.clock.now().toISOString();
  const existing = await app.db
    .selectFrom('users')
    .select('email_verified_at')
    .where('email', '=', email)
    .executeTakeFirst();
  if (existing?.email_verified_at) {
    await queueEmail(
      app.db,
      {
        accountId: null,
        to: email,
        kind: 'notice',
        subject: 'Someone tried to sign up with your address',
        text: `Somebody (perhaps you) tried to create a Stories team with this address, which already has an account.\n\nSign in: ${app.config.baseUrl}/signin\nForgot your password? ${app.config.baseUrl}/reset\n\nIf it was not you, nothing changed.`,
      },
      now,
    );
    return;
  }
  const token = await signLink(
    app,
    'sign-up',
    { e: email, t: team, p: input.plan },
    CONFIRM_TTL_MS,
  );
  await queueEmail(
    app.db,
    {
      accountId: null,
      to: email,
      kind: 'notice',
      subject: 'Confirm your email for Stories',
      text: `Welcome to Stories. Confirm your email and choose your password to start:\n\n${app.config.baseUrl}/signup/confirm/${token}\n\nThe link is valid for 48 hours. If you did not ask for this, ignore this email: nothing was created.`,
    },
    now,
  );
}

export interface PendingSignUp {
  email: string;
  team: string;
  plan: Plan;
}

/** The sign-up a confirmation link asks for, while valid; null otherwise. */
export async function readSignUp(app: AppContext, token: string): Promise<PendingSignUp | null> {
  const data = await verifyLink(app, 'sign-up', token);
  if (!data || typeof data.e !== 'string' || typeof data.t !== 'string') return null;
  if (!PLANS.includes(data.p as Plan)) return null;
  return { email: data.e, team: data.t, plan: data.p as Plan };
}

/**
 * Creates the team of a confirmed sign-up with the password chosen now: the account, its
 * owner (the email proven by the link) and the membership, in one transaction. A link of
 * an address that has an account by now creates nothing: a link works once.
 */
export async function completeSignUp(
  app: AppContext,
  token: string,
  password: string,
): Promise<{ userId: string; accountId: string } | null> {
  const pending = await readSignUp(app, token);
  if (!pending) return null;
  checkNewPassword(password);
  const passwordHash = await hashPassword(password);
  const now = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    const existing = await trx
      .selectFrom('users')
      .select(['id', 'email_verified_at'])
      .where('email', '=', pending.email)
      .executeTakeFirst();
    if (existing?.email_verified_at) return null;
    const accountId = newId('acc');
    const userId = existing?.id ?? newId('usr');
    await trx
      .insertInto('accounts')
      .values({
        id: accountId,
        name: pending.team,
        plan: pending.plan,
        state: 'active',
        trial_ends_at: null,
        created_at: now,
      })
      .execute();
    if (existing) {
      // Invited somewhere but never signed in: the mailbox proven now sets the password.
      await trx
        .updateTable('users')
        .set({ password_hash: passwordHash, email_verified_at: now })
        .where('id', '=', userId)
        .execute();
    } else {
      await trx
        .insertInto('users')
        .values({
          id: userId,
          email: pending.email,
          name: null,
          password_hash: passwordHash,
          email_verified_at: now,
          created_at: now,
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
        created_at: now,
      })
      .execute();
    await writeAudit(trx, {
      accountId,
      actor: `user:${userId}`,
      action: 'account.created',
      details: { plan: pending.plan },
      at: now,
    });
    return { userId, accountId };
  }).catch((e) => {
    // The same link used twice at once: the second finds the first's user.
    if (isUniqueViolation(e)) return null;
    throw e;
  });
}

/** A link is single-use: it names the password it replaces, so a reset voids it. */
const fingerprint = (passwordHash: string | null) =>
  hash('sha256', passwordHash ?? '', 'base64url').slice(0, 16);

/**
 * A link to choose a password (a reset link): for a reset, or an invited teammate, who
 * joins with it and, signed in to the account that invited them, goes on to `next` (a
 * path of this site: the phase they were assigned).
 */
export async function passwordLink(
  app: AppContext,
  user: { id: string; password_hash: string | null },
  ttlMs = RESET_TTL_MS,
  invitation?: { accountId: string; next?: string },
): Promise<string> {
  const token = await signLink(
    app,
    'password-reset',
    {
      u: user.id,
      f: fingerprint(user.password_hash),
      ...(invitation && { j: invitation.accountId }),
      ...(invitation?.next && { n: invitation.next }),
    },
    ttlMs,
  );
  return `${app.config.baseUrl}/reset/${token}`;
}

/** Emails a reset link when the address has a user; silent otherwise (same answer). */
export async function requestPasswordReset(app: AppContext, rawEmail: string): Promise<void> {
  const email = rawEmail.trim().toLowerCase();
  const user = await app.db
    .selectFrom('users')
    .select(['id', 'password_hash'])
    .where('email', '=', email)
    .executeTakeFirst();
  if (!user) return;
  const now = app.clock.now().toISOString();
  const link = await passwordLink(app, user);
  await queueEmail(
    app.db,
    {
      accountId: null,
      to: email,
      kind: 'notice',
      subject: 'Reset your Stories password',
      text: `Choose a new password here (valid for one hour, once):\n\n${link}\n\nIf you did not ask for this, ignore this email: nothing changes.`,
    },
    now,
  );
}

/** The user a reset link is for, while it is valid and unused; else null. */
export async function resetLinkUser(app: AppContext, token: string): Promise<string | null> {
  const data = await verifyLink(app, 'password-reset', token);
  if (!data || typeof data.u !== 'string') return null;
  const user = await app.db
    .selectFrom('users')
    .select(['id', 'password_hash'])
    .where('id', '=', data.u)
    .executeTakeFirst();
  return user && fingerprint(user.password_hash) === data.f ? user.id : null;
}

/**
 * Sets the new password of a valid reset link; the link proves the email too. Answers the
 * user, and for an invited teammate the account they joined and where the link leads on.
 */
export async function resetPassword(
  app: AppContext,
  token: string,
  password: string,
): Promise<{ userId: string; joined: string | null; next: string | null } | null> {
  const userId = await resetLinkUser(app, token);
  if (!userId) return null;
  checkNewPassword(password);
  const data = await verifyLink(app, 'password-reset', token);
  const next = typeof data?.n === 'string' ? data.n : null;
  const invitedTo = typeof data?.j === 'string' ? data.j : null;
  const now = app.clock.now().toISOString();
  const passwordHash = await hashPassword(password);
  return inTransaction(app, async (app) => {
    const trx = app.db;
    await trx
      .updateTable('users')
      .set((eb) => ({
        password_hash: passwordHash,
        email_verified_at: eb.fn.coalesce('email_verified_at', eb.val(now)),
      }))
      .where('id', '=', userId)
      .execute();
    // An invited teammate joins by choosing a password from the emailed link.
    // The account whose invitation this is, when it still stands; else the oldest one.
    const invitations = await trx
      .selectFrom('memberships')
      .select('account_id')
      .where('user_id', '=', userId)
      .where('status', '=', 'invited')
      .orderBy('created_at')
      .execute();
    const invited = invitations.find((m) => m.account_id === invitedTo) ?? invitations[0];
    await trx
      .updateTable('memberships')
      .set({ status: 'active' })
      .where('user_id', '=', userId)
      .where('status', '=', 'invited')
      .execute();
    return { userId, joined: invited?.account_id ?? null, next };
  });
}
