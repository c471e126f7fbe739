import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { type AppContext, inTransaction } from '../context.js';
import { newId } from '../ids.js';
import { WEBHOOK_DELIVER } from '../jobs/kinds.js';
import { enqueue } from '../jobs/queue.js';
import { safePost } from '../net/safe-post.js';
import { brandAudience } from './events.js';

/** Deliveries are retried for about three days, then given up. */
export const RETRY_WINDOW_MS = 3 * 24 * 3_600_000;
/** The longest wait between two attempts. */
const MAX_DELAY_MS = 12 * 3_600_000;
const TIMEOUT_MS = 10_000;

/**
 * The delay before attempt `n + 1` after `n` failed ones: exponential from the base,
 * capped at 12 hours, with ±25% jitter so a receiver coming back is not hit by every
 * retry at the same instant. With the default 30-second base: 30 s, 1 min, 2 min, … 8.5 h,
 * then every 12 h until three days have passed (about 16 attempts).
 */
export function retryDelayMs(baseMs: number, failedAttempts: number, random = Math.random()) {
  const delay = Math.min(baseMs * 2 ** (failedAttempts - 1), MAX_DELAY_MS);
  return Math.round(delay * (0.75 + random * 0.5));
}

/**
 * One attempt of one delivery (the `webhook.deliver` job). Signed by the Standard
 * Webhooks scheme (`webhook-id` is the event's id, the same on every retry, so receivers
 * deduplicate by it). 2xx delivers; 410 disables the endpoint for good; anything else
 * schedules the next attempt as a new job, so a restart loses nothing. Every attempt is
 * recorded. Running twice is harmless: only a pending delivery at its attempt count is
 * advanced.
 */
export async function deliverWebhookJob(app: AppContext, payload: { delivery: string }) {
  const d = await app.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select([
      'd.id',
      'd.event_id',
      'd.event_type',
      'd.payload',
      'd.status',
      'd.attempts',
      'd.created_at',
      'e.id as endpoint_id',
      'e.account_id',
      'e.url',
      'e.secret',
      'e.previous_secret',
      'e.previous_secret_expires_at',
      'e.disabled_at',
    ])
    .where('d.id', '=', payload.delivery)
    .executeTakeFirst();
  if (d?.status !== 'pending') return { skipped: true };
  const now = app.clock.now();
  const cancel = async (reason: string) => {
    await app.db
      .updateTable('webhook_deliveries')
      .set({ status: 'cancelled', last_error: reason, next_attempt_at: null })
      .where('id', '=', d.id)
      .where('status', '=', 'pending')
      .execute();
    return { cancelled: true };
  };
  if (d.disabled_at) return cancel('endpoint disabled');
  if (!(await stillRouted(app, d))) return cancel('no longer routed: the delegation ended');

  const secrets = [d.secret];
  if (
    d.previous_secret &&
    d.previous_secret_expires_at &&
    d.previous_secret_expires_at > now.toISOString()
  ) {
    secrets.push(d.previous_secret);
  }
  const signature = secrets.map((s) => new Webhook(s).sign(d.event_id, now, d.payload)).join(' ');
  const started = Date.now();
  let status: number | null = null;
  let error: string | null = null;
  try {
    status = (
      await safePost(
        app.config,
        d.url,
        d.payload,
        {
          'content-type': 'application/json',
          'user-agent': 'Stories-Webhooks/1.0',
          'webhook-id': d.event_id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signature,
        },
        TIMEOUT_MS,
      )
    ).status;
  } catch (e) {
    error = (e as Error).message.slice(0, 500);
  }
  const attempt = d.attempts + 1;
  const at = app.clock.now().toISOString();
  const delivered = status !== null && status >= 200 && status < 300;
  const gone = status === 410;
  const next = new Date(now.getTime() + retryDelayMs(app.config.webhookRetryBaseMs, attempt));
  const giveUp = !delivered && !gone && next.getTime() - Date.parse(d.created_at) > RETRY_WINDOW_MS;
  const outcome = delivered ? 'delivered' : gone || giveUp ? 'failed' : 'pending';

  await inTransaction(app, async (app) => {
    const trx = app.db;
    await trx
      .insertInto('webhook_attempts')
      .values({
        id: newId('wha'),
        delivery_id: d.id,
        attempt,
        at,
        status_code: status,
        error,
        duration_ms: Date.now() - started,
      })
      .execute();
    const r = await trx
      .updateTable('webhook_deliveries')
      .set({
        status: outcome,
        attempts: attempt,
        last_status_code: status,
        last_error: gone
          ? 'endpoint answered 410 Gone: disabled'
          : (error ?? (delivered ? null : `HTTP ${status}`)),
        next_attempt_at: outcome === 'pending' ? next.toISOString() : null,
        delivered_at: delivered ? at : null,
      })
      .where('id', '=', d.id)
      .where('attempts', '=', d.attempts)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    // Another run of this job got here first: it owns what comes next.
    if (Number(r.numUpdatedRows) === 0) return;
    if (gone) {
      await trx
        .updateTable('webhook_endpoints')
        .set({ disabled_at: at })
        .where('id', '=', d.endpoint_id)
        .execute();
    }
    if (outcome === 'pending') {
      await enqueue(
        trx,
        WEBHOOK_DELIVER,
        { delivery: d.id },
        { now: at, runAt: next.toISOString() },
      );
    }
  });
  return { attempt, status, outcome };
}

/**
 * Whether a delivery still goes to its endpoint's account: a partner whose delegation of
 * the brand ended (dropped, revoked) gets none of the brand's events that were still
 * waiting, from the next attempt on; the routing is read from the database, so it holds
 * on every instance at once (well within the specification's 300-second routing cache).
 * A delegation event reaches its two parties whatever became of the delegation.
 */
async function stillRouted(
  app: AppContext,
  d: { event_type: string; payload: string; account_id: string },
): Promise<boolean> {
  if (d.event_type.startsWith('delegation.')) return true;
  const host: unknown = JSON.parse(d.payload).data?.brand;
  if (typeof host !== 'string') return true;
  const brand = await app.db
    .selectFrom('brands')
    .select(['id', 'account_id'])
    .where('host', '=', host)
    .executeTakeFirst();
  return brand !== undefined && (await brandAudience(app.db, brand)).has(d.account_id);
}

/**
 * Puts back a job for every pending delivery whose next attempt is long overdue and has
 * no job waiting or running (its job ran out of attempts through crashes): a delivery is
 * never left pending with nothing behind it. Run by the hourly sweep.
 */
export async function requeueStalledDeliveries(app: AppContext): Promise<number> {
  const now = app.clock.now();
  const overdue = new Date(now.getTime() - 15 * 60_000).toISOString();
  const stalled = await app.db
    .selectFrom('webhook_deliveries as d')
    .select('d.id')
    .where('d.status', '=', 'pending')
    .where('d.next_attempt_at', '<', overdue)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('jobs as j')
            .select('j.id')
            .where('j.name', '=', WEBHOOK_DELIVER.name)
            .where('j.status', 'in', ['queued', 'running'])
            .where(
              'j.payload',
              '=',
              sql<string>`${sql.lit('{"delivery":"')} || d.id || ${sql.lit('"}')}`,
            ),
        ),
      ),
    )
    .limit(1000)
    .execute();
  for (const d of stalled) {
    await enqueue(app.db, WEBHOOK_DELIVER, { delivery: d.id }, { now: now.toISOString() });
  }
  return stalled.length;
}
