import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';

/**
 * The portal's per-person windows, as keys and agents have theirs on the other doors: a
 * person hammering searches, exports or forms is told to wait (429 with Retry-After), so
 * one tab in a loop cannot take the instance from everyone else. A person's windows are
 * shared by all their tabs and, with REDIS_URL, all instances.
 */
export const PORTAL_WINDOWS = {
  /** Every form POST. */
  post: { limit: 120, ms: 60_000 },
  /** The stories list with its search and filters. */
  search: { limit: 60, ms: 60_000 },
  /** CSV exports of the list. */
  export: { limit: 10, ms: 60_000 },
} as const;

/**
 * Exports streaming at once, per person and per instance: each reads the database page
 * after page for as long as the download lasts. A person's third one, or the instance's
 * fifth, waits its turn (429, a few seconds).
 */
export const EXPORTS_AT_ONCE = { person: 2, instance: 4 } as const;
const EXPORT_RETRY_SECONDS = 5;

/** Counts one request of `userId` in its window; 429 past the limit. */
export async function countPortal(
  app: AppContext,
  kind: keyof typeof PORTAL_WINDOWS,
  userId: string,
): Promise<void> {
  const { limit, ms } = PORTAL_WINDOWS[kind];
  const w = await app.limiter.hit(`portal-${kind}:${userId}`, ms);
  if (w.count > limit) {
    const wait = Math.max(1, Math.ceil((w.resetAt - app.clock.now().getTime()) / 1000));
    throw new AppError('rate_limited', undefined, { 'retry-after': String(wait) });
  }
}

/** Exports running in this process: in all, and per person. */
const running = { total: 0, byUser: new Map<string, number>() };

/**
 * Takes one of the export slots of this person and instance, or refuses with 429. The
 * answer releases it (once, whatever ends the download: its end, an error, the client
 * gone).
 */
export function takeExportSlot(userId: string): () => void {
  const mine = running.byUser.get(userId) ?? 0;
  if (mine >= EXPORTS_AT_ONCE.person || running.total >= EXPORTS_AT_ONCE.instance) {
    throw new AppError('rate_limited', undefined, {
      'retry-after': String(EXPORT_RETRY_SECONDS),
    });
  }
  running.total += 1;
  running.byUser.set(userId, mine + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    running.total -= 1;
    const left = (running.byUser.get(userId) ?? 1) - 1;
    if (left > 0) running.byUser.set(userId, left);
    else running.byUser.delete(userId);
  };
}
