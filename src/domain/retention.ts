import type { AppContext } from '../context.js';

/** Rows deleted per statement: short transactions, whatever the backlog. */
const BATCH = 1000;
const DAY_MS = 24 * 3600_000;

/**
 * Prunes what only grows: finished jobs (done or failed) older than RETENTION_JOBS_DAYS,
 * and finished webhook deliveries (delivered, failed for good, cancelled) older than
 * RETENTION_WEBHOOKS_DAYS with their attempts. Queued and running jobs and pending
 * deliveries are never touched. Run by the hourly sweep, by any process: two at once
 * delete disjoint or already-gone rows. Returns how many rows of each went.
 */
export async function pruneFinished(app: AppContext) {
  const now = app.clock.now().getTime();
  const jobsBefore = new Date(now - app.config.retentionDays.jobs * DAY_MS).toISOString();
  const hooksBefore = new Date(now - app.config.retentionDays.webhooks * DAY_MS).toISOString();
  const jobs = await inBatches(
    async () =>
      (
        await app.db
          .selectFrom('jobs')
          .select('id')
          .where('status', 'in', ['done', 'failed'])
          .where('updated_at', '<', jobsBefore)
          .limit(BATCH)
          .execute()
      ).map((r) => r.id),
    async (ids) => {
      // A story-from-URL request goes with its job.
      await app.db.deleteFrom('story_requests').where('job_id', 'in', ids).execute();
      return app.db
        .deleteFrom('jobs')
        .where('id', 'in', ids)
        .where('status', 'in', ['done', 'failed'])
        .executeTakeFirst();
    },
  );
  const deliveries = await inBatches(
    async () =>
      (
        await app.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('status', 'in', ['delivered', 'failed', 'cancelled'])
          .where('created_at', '<', hooksBefore)
          .limit(BATCH)
          .execute()
      ).map((r) => r.id),
    (ids) =>
      app.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('webhook_attempts').where('delivery_id', 'in', ids).execute();
        return trx
          .deleteFrom('webhook_deliveries')
          .where('id', 'in', ids)
          .where('status', 'in', ['delivered', 'failed', 'cancelled'])
          .executeTakeFirst();
      }),
  );
  return { jobs, deliveries };
}

/**
 * Deletes in batches of BATCH: `next` names a batch's ids, `remove` deletes them (and
 * what goes with them), until a batch comes back short. Answers how many rows went.
 */
async function inBatches(
  next: () => Promise<string[]>,
  remove: (ids: string[]) => Promise<{ numDeletedRows: bigint }>,
): Promise<number> {
  let gone = 0;
  for (;;) {
    const ids = await next();
    if (ids.length === 0) break;
    gone += Number((await remove(ids)).numDeletedRows);
    if (ids.length < BATCH) break;
  }
  return gone;
}

/** What a connector found is remembered this long (longer than any search's window). */
const CONNECTOR_ITEMS_DAYS = 60;

/**
 * Prunes, after CONNECTOR_ITEMS_DAYS, what connectors remembered having read (their
 * searches no longer list it) and the posts kept as mentions with too little reach for a
 * story (a story's sources stay with it; these are a stream's passing voices;
 * docs/sources.md). Run by the hourly sweep; returns how many rows went.
 */
export async function pruneFound(app: AppContext): Promise<number> {
  const before = new Date(app.clock.now().getTime() - CONNECTOR_ITEMS_DAYS * DAY_MS).toISOString();
  let gone = 0;
  for (const table of ['connector_items', 'quiet_mentions'] as const) {
    gone += await inBatches(
      async () =>
        (
          await app.db
            .selectFrom(table)
            .select('id')
            .where('created_at', '<', before)
            .limit(BATCH)
            .execute()
        ).map((r) => r.id),
      (ids) => app.db.deleteFrom(table).where('id', 'in', ids).executeTakeFirst(),
    );
  }
  return gone;
}
