import { hashPassword, verifyPassword } from '../auth/passwords.js';
import { endAllSessions } from '../auth/sessions.js';
import { type AppContext, inTransaction } from '../context.js';
import { invalid } from '../errors.js';
import { writeAudit } from './audit.js';

/** The zones a profile may choose: the runtime's IANA list. */
export const TIME_ZONES: readonly string[] = Intl.supportedValuesOf('timeZone');
const ZONES = new Set(TIME_ZONES);

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
  const timeZone = input.timeZone.trim();
  if (timeZone && !ZONES.has(timeZone)) {
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
