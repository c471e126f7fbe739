import { createHash } from 'node:crypto';
import { hashPassword } from '../auth/passwords.js';
import { signLink, verifyLink } from '../auth/signed-links.js';
import type { AppContext } from '../context.js';
import { type Db, isUniqueViolation, withTransaction } from '../db/database.js';
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
 * A new team: its account, its owner (email not yet confirmed, so no way in yet) and the
 * confirmation email, in one transaction. An email that already has a user gets a notice
 * instead, and the answer is the same, so sign-up never tells who has an account.
 */
export async function signUp(
  app: AppContext,
  input: { team: string; email: string; password: string; plan: Plan },
): Promise<void> {
  const email = input.email.trim().toLowerCase();
  const team = input.team.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) {
    throw invalid('email: must be an email address');
  }
  if (team.length < 2 || team.length > 80) throw invalid('team: must be 2 to 80 characters');
  if (!PLANS.includes(input.plan)) throw invalid('plan: must be one of the plans');
  checkNewPassword(input.password);
  const passwordHash = await hashPassword(input.password);
  const now = app.clock.now().toISOString();
  await withTransaction(app.db, async (trx) => {
    const existing = await trx
      .selectFrom('users')
      .select(['id', 'email_verified_at'])
      .where('email', '=', email)
      .executeTakeFirst();
    if (existing?.email_verified_at) {
      await queueEmail(
        trx,
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
    const accountId = newId('acc');
    const userId = existing?.id ?? newId('usr');
    await trx
      .insertInto('accounts')
      .values({
        id: accountId,
        name: team,
        plan: input.plan,
        state: 'active',
        trial_ends_at: null,
        created_at: now,
      })
      .execute();
    if (existing) {
      // Never confirmed: whoever confirms now sets the password.
      await trx
        .updateTable('users')
        .set({ password_hash: passwordHash })
        .where('id', '=', userId)
        .execute();
    } else {
      await trx
        .insertInto('users')
        .values({
          id: userId,
          email,
          name: null,
          password_hash: passwordHash,
          email_verified_at: null,
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
      details: { plan: input.plan },
      at: now,
    });
    const token = await signLink(app, 'email-confirm', { u: userId }, CONFIRM_TTL_MS, trx);
    await queueEmail(
      trx,
      {
        accountId,
        to: email,
        kind: 'notice',
        subject: 'Confirm your email for Stories',
        text: `Welcome to Stories. Confirm your email to start:\n\n${app.config.baseUrl}/confirm/${token}\n\nThe link is valid for 48 hours.`,
      },
      now,
    );
  }).catch((e) => {
    // The same address signing up twice at once: the second finds the first's user.
    if (!isUniqueViolation(e)) throw e;
  });
}

/** Confirms the email of a confirmation link; answers the user, or null if invalid. */
export async function confirmEmail(app: AppContext, token: string): Promise<string | null> {
  const data = await verifyLink(app, 'email-confirm', token);
  if (!data || typeof data.u !== 'string') return null;
  const now = app.clock.now().toISOString();
  const user = await app.db
    .selectFrom('users')
    .select(['id', 'email_verified_at'])
    .where('id', '=', data.u)
    .executeTakeFirst();
  if (!user) return null;
  if (!user.email_verified_at) {
    await app.db
      .updateTable('users')
      .set({ email_verified_at: now })
      .where('id', '=', user.id)
      .execute();
  }
  return user.id;
}

/** A link is single-use: it names the password it replaces, so a reset voids it. */
const fingerprint = (hash: string | null) =>
  createHash('sha256')
    .update(hash ?? '')
    .digest('base64url')
    .slice(0, 16);

/** A link to choose a password (a reset link): for a reset, or an invited teammate. */
export async function passwordLink(
  app: AppContext,
  user: { id: string; password_hash: string | null },
  ttlMs = RESET_TTL_MS,
  db: Db = app.db,
): Promise<string> {
  const token = await signLink(
    app,
    'password-reset',
    { u: user.id, f: fingerprint(user.password_hash) },
    ttlMs,
    db,
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

/** Sets the new password of a valid reset link; the link proves the email too. */
export async function resetPassword(
  app: AppContext,
  token: string,
  password: string,
): Promise<string | null> {
  const userId = await resetLinkUser(app, token);
  if (!userId) return null;
  checkNewPassword(password);
  const now = app.clock.now().toISOString();
  const passwordHash = await hashPassword(password);
  await withTransaction(app.db, async (trx) => {
    await trx
      .updateTable('users')
      .set((eb) => ({
        password_hash: passwordHash,
        email_verified_at: eb.fn.coalesce('email_verified_at', eb.val(now)),
      }))
      .where('id', '=', userId)
      .execute();
    // An invited teammate joins by choosing a password from the emailed link.
    await trx
      .updateTable('memberships')
      .set({ status: 'active' })
      .where('user_id', '=', userId)
      .where('status', '=', 'invited')
      .execute();
  });
  return userId;
}
