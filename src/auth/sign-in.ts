import type { AppContext } from '../context.js';
import type { Plan, Role } from '../db/schema.js';
import { hashPassword, verifyPassword } from './passwords.js';

const WINDOW_MS = 60_000;
/** Sign-in attempts for one email per minute, from anywhere. */
const SIGN_INS_PER_EMAIL_PER_MINUTE = 10;

/**
 * Counts a sign-in attempt before the password is checked, per address and per email,
 * so parallel guesses cannot slip past the limit and no account is guessed at speed.
 * Answers false when the attempt is over either limit. The portal and the OAuth sign-in
 * page share the counters.
 */
export async function countSignInAttempt(
  app: AppContext,
  address: string,
  email: string,
): Promise<boolean> {
  const byAddress = await app.limiter.hit(`signin:ip:${address}`, WINDOW_MS);
  const byEmail = await app.limiter.hit(`signin:email:${email}`, WINDOW_MS);
  return (
    byAddress.count <= app.config.authFailuresPerMinute &&
    byEmail.count <= SIGN_INS_PER_EMAIL_PER_MINUTE
  );
}

/** Checked when the email is unknown too, so timing does not tell which emails exist. */
let dummyHash: Promise<string> | undefined;

/** The user whose email and password these are, with a confirmed email; else null. */
export async function checkPassword(
  app: AppContext,
  email: string,
  password: string,
): Promise<string | null> {
  if (!email || !password || password.length > 1024) return null;
  const user = await app.db
    .selectFrom('users')
    .select(['id', 'password_hash', 'email_verified_at'])
    .where('email', '=', email)
    .executeTakeFirst();
  dummyHash ??= hashPassword('not a password anyone has');
  const ok = await verifyPassword(user?.password_hash ?? (await dummyHash), password);
  // An address never proved is not a way in, whatever password was set for it.
  return ok && user?.password_hash && user.email_verified_at ? user.id : null;
}

export interface Workspace {
  id: string;
  name: string;
  plan: Plan;
  role: Role;
}

/** The accounts a user is an active member of, by name. */
export function workspacesOf(app: AppContext, userId: string): Promise<Workspace[]> {
  return app.db
    .selectFrom('memberships as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select(['a.id', 'a.name', 'a.plan', 'm.role'])
    .where('m.user_id', '=', userId)
    .where('m.status', '=', 'active')
    .orderBy('a.name')
    .orderBy('a.id')
    .execute();
}
