import { hashPassword, verifyPassword } from '../auth/passwords.js';
import { endAllSessions } from '../auth/sessions.js';
import { type AppContext, inTransaction } from '../context.js';
import { AppError, invalid } from '../errors.js';
import { writeAudit } from './audit.js';

/** The zones the profile offers: UTC, then the runtime's canonical IANA list. */
export const TIME_ZONES: readonly string[] = ['UTC', ...Intl.supportedValuesOf('timeZone')];

/**
 * Whether the runtime knows the zone: any IANA name, canonical or an alias the offered
 * list leaves out (Asia/Kolkata, Europe/Kyiv), as the browser's script will use it.
 */
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export async function getProfile(app: AppContext, userId: string) {
  return app.db
    .selectFrom('users')
    .select(['email', 'name', 'time_zone'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
}

/**
 * A person's name (shown in activity and on assignments instead of their email) and the
 * time zone the portal shows times in; empty clears either.
 */
export async function saveProfile(
  app: AppContext,
  userId: string,
  input: { name: string; timeZone: string },
) {
  const name = input.name.trim().replace(/\s+/g, ' ');
  if (name.length > 80) throw invalid('name: at most 80 characters');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point.
  if (/[\u0000-\u001f\u007f]/.test(name)) throw invalid('name: no control characters');
  // The activity shows the name for who did what: it may not pass for an address.
  if (name.includes('@')) throw invalid('name: a name, not an email address');
  const timeZone = input.timeZone.trim();
  if (timeZone && !isTimeZone(timeZone)) {
    throw invalid('time_zone: not a time zone (an IANA name such as Europe/Paris)');
  }
  await app.db
    .updateTable('users')
    .set({ name: name || null, time_zone: timeZone || null })
    .where('id', '=', userId)
    .execute();
  return { name: name || null, time_zone: timeZone || null };
}

/**
 * Changes a password, knowing the current one. Every session of the person ends (a
 * stolen one among them); the portal starts a new one for the browser that changed it.
 */
export async function changePassword(
  app: AppContext,
  opts: {
    userId: string;
    accountId: string;
    current: string;
    next: string;
  },
) {
  // Guesses from a session left open are counted, as sign-in counts them.
  const tries = await app.limiter.hit(`password-change:${opts.userId}`, 60_000);
  if (tries.count > 5) throw new AppError('rate_limited', undefined, { 'retry-after': '60' });
  const user = await app.db
    .selectFrom('users')
    .select('password_hash')
    .where('id', '=', opts.userId)
    .executeTakeFirstOrThrow();
  if (!user.password_hash || !(await verifyPassword(user.password_hash, opts.current))) {
    throw invalid('current_password: not your current password');
  }
  if (opts.next.length < 8) throw invalid('new_password: must be at least 8 characters');
  if (opts.next.length > 1024) throw invalid('new_password: at most 1024 characters');
  const hash = await hashPassword(opts.next);
  await inTransaction(app, async (app) => {
    await app.db
      .updateTable('users')
      .set({ password_hash: hash })
      .where('id', '=', opts.userId)
      .execute();
    await endAllSessions(app, opts.userId);
    await writeAudit(app.db, {
      accountId: opts.accountId,
      actor: `user:${opts.userId}`,
      action: 'user.password_changed',
      at: app.clock.now().toISOString(),
    });
  });
}
