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
/**
 * How long a person's count of running exports lives without a change: a process that
 * died mid-export never gives its slot back, and the count forgets it after this.
 */
const RUNNING_WINDOW_MS = 10 * 60_000;

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

const busy = () =>
  new AppError('rate_limited', undefined, { 'retry-after': String(EXPORT_RETRY_SECONDS) });

/** Exports streaming in this server thread. */
let running = 0;

/**
 * Takes one of the export slots of this person and instance, or refuses with 429; the
 * answer gives it back (once, however the download ends). A person's exports are counted
 * in the shared limiter, so every server thread (and, with REDIS_URL, every instance)
 * sees them; the instance's cap is shared out among its server threads.
 */
export async function takeExportSlot(app: AppContext, userId: string): Promise<() => void> {
  const perThread = Math.max(1, Math.floor(EXPORTS_AT_ONCE.instance / app.config.workers));
  if (running >= perThread) throw busy();
  running += 1;
  const bucket = `portal-exports-running:${userId}`;
  try {
    const w = await app.limiter.hit(bucket, RUNNING_WINDOW_MS);
    if (w.count > EXPORTS_AT_ONCE.person) {
      await app.limiter.release(bucket);
      throw busy();
    }
  } catch (e) {
    running -= 1;
    throw e;
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    running -= 1;
    // A limiter that fails here (Redis gone) leaves the count to expire with its window.
    app.limiter.release(bucket).catch(() => {});
  };
}
