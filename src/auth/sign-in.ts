import type { AppContext } from '../context.js';
import type { Plan, Role } from '../db/schema.js';
import { addressBucket } from './client-address.js';
import { effectivePlan, runningTrial } from './effective-plan.js';
import { hashPassword, verifyPassword } from './passwords.js';

const WINDOW_MS = 60_000;
/** Failed sign-ins for one email from one client address per minute. */
const SIGN_INS_PER_EMAIL_PER_MINUTE = 10;

/** One sign-in attempt, counted until it is known to have succeeded. */
export interface SignInAttempt {
  /** Whether the password may be checked now; false answers 429. */
  allowed: boolean;
  buckets: string[];
}

/**
 * Counts a sign-in attempt against its client address (AUTH_FAILURES_PER_MINUTE) and
 * against the (address, email) pair (10), up front, so a burst of parallel guesses cannot
 * slip past either limit together; a success gives its count back (forgiveSignIn), so the
 * counters hold failures. Nothing counts per email alone: a stranger failing for someone's
 * email from their own address locks only that address out of that email, and the person
 * still signs in from theirs. From the failing address even the right password waits out
 * the window, which is what keeps guessing slow. A browser where the person signed in
 * before (its device cookie for this email, device-cookie.ts) is counted by itself
 * instead, so strangers failing behind the same address do not keep it out. The portal
 * and the OAuth sign-in page share the counters.
 */
export async function countSignInAttempt(
  app: AppContext,
  clientAddress: string,
  email: string,
  device: string | null = null,
): Promise<SignInAttempt> {
  if (device !== null) {
    const byDevice = `signin:device:${device}`;
    const seen = await app.limiter.hit(byDevice, WINDOW_MS);
    return { allowed: seen.count <= SIGN_INS_PER_EMAIL_PER_MINUTE, buckets: [byDevice] };
  }
  const address = addressBucket(clientAddress);
  const byAddress = `signin:ip:${address}`;
  const seen = await app.limiter.hit(byAddress, WINDOW_MS);
  // An address past its budget adds no bucket per email it tries (memory stays bounded).
  if (seen.count > app.config.authFailuresPerMinute) {
    return { allowed: false, buckets: [byAddress] };
  }
  // No address is longer than 254 characters: a longer one is only ever a failure.
  const byPair = `signin:ip-email:${address}:${email.slice(0, 254)}`;
  const pair = await app.limiter.hit(byPair, WINDOW_MS);
  return { allowed: pair.count <= SIGN_INS_PER_EMAIL_PER_MINUTE, buckets: [byAddress, byPair] };
}

/** The attempt succeeded: it does not count against the address or the email. */
export async function forgiveSignIn(app: AppContext, attempt: SignInAttempt): Promise<void> {
  await Promise.all(attempt.buckets.map((b) => app.limiter.release(b)));
}

/**
 * Emails the service sends on request (reset, sign-up): a few per address and minute, and
 * three per email so the form cannot flood an inbox. The person's own browser (its device
 * cookie for the email) is counted by itself instead, so strangers asking for someone's
 * reset cannot hold back the one that person asks for.
 */
export async function countEmailRequest(
  app: AppContext,
  kind: 'reset' | 'signup',
  clientAddress: string,
  email: string,
  device: string | null = null,
): Promise<boolean> {
  if (device !== null) {
    return (await app.limiter.hit(`${kind}:device:${device}`, WINDOW_MS)).count <= 3;
  }
  const address = addressBucket(clientAddress);
  const byAddress = await app.limiter.hit(`${kind}:ip:${address}`, WINDOW_MS);
  const byEmail = await app.limiter.hit(`${kind}:email:${email}`, WINDOW_MS);
  return byAddress.count <= app.config.authFailuresPerMinute && byEmail.count <= 3;
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
  /** The plan the account works with now (a reclaim trial's, while it runs). */
  plan: Plan;
  role: Role;
  /** The running reclaim trial: its plan, end, and whole days left (rounded up). */
  trial: { plan: Plan; endsAt: string; daysLeft: number } | null;
}

/** The accounts a user is an active member of, by name. */
export async function workspacesOf(app: AppContext, userId: string): Promise<Workspace[]> {
  const now = app.clock.now();
  const rows = await app.db
    .selectFrom('memberships as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select(['a.id', 'a.name', 'a.plan', 'a.trial_plan', 'a.trial_ends_at', 'm.role'])
    .where('m.user_id', '=', userId)
    .where('m.status', '=', 'active')
    .orderBy('a.name')
    .orderBy('a.id')
    .execute();
  return rows.map((r) => {
    const trial = runningTrial(r, now);
    return {
      id: r.id,
      name: r.name,
      plan: effectivePlan(r, now),
      role: r.role,
      trial: trial && {
        ...trial,
        daysLeft: Math.ceil((Date.parse(trial.endsAt) - now.getTime()) / 86_400_000),
      },
    };
  });
}
