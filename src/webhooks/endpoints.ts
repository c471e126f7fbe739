import { randomBytes } from 'node:crypto';
import { type AppContext, inTransaction } from '../context.js';
import { decode, encode } from '../db/json-columns.js';
import { lockRow, lockRows } from '../db/locks.js';
import { requireAccount } from '../domain/accounts.js';
import { writeAudit } from '../domain/audit.js';
import { AppError, conflict, invalid, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { WEBHOOK_DELIVER } from '../jobs/kinds.js';
import { enqueue } from '../jobs/queue.js';
import { assertPublicUrl } from '../net/public-url.js';
import { EVENT_TYPES } from './events.js';

/** After a rotation the previous secret still signs for this long, so receivers can switch. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 3_600_000;

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

function parseEventTypes(raw: string[]): string[] {
  const types = [...new Set(raw.map((t) => t.trim()).filter(Boolean))];
  if (types.length === 0) throw invalid('events: name at least one event type, or *');
  const unknown = types.filter((t) => t !== '*' && !(EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length > 0) {
    throw invalid(
      `events: unknown event type ${unknown.join(', ')} (known: ${EVENT_TYPES.join(', ')})`,
    );
  }
  return types;
}

/**
 * Registers an endpoint for an account. The URL must be HTTPS on a public host (checked
 * now, and again at each delivery's connection); the secret is shown here, and later
 * only by `rotate`.
 */
export async function addEndpoint(
  app: AppContext,
  {
    accountId,
    url,
    events: eventTypes,
    actor,
  }: { accountId: string; url: string; events: string[]; actor: string },
) {
  await requireAccount(app, accountId);
  const target = await assertPublicUrl(app.config, url, 'url');
  const types = parseEventTypes(eventTypes);
  const id = newId('whe');
  const secret = newSecret();
  const at = app.clock.now().toISOString();
  await app.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhook_endpoints')
      .values({
        id,
        account_id: accountId,
        url: target.href,
        event_types: encode('webhook_endpoints.event_types', types),
        secret,
        previous_secret: null,
        previous_secret_expires_at: null,
        created_at: at,
        disabled_at: null,
      })
      .execute();
    await writeAudit(trx, {
      accountId,
      actor,
      action: 'webhook.added',
      details: { endpoint: id, url: target.href, events: types },
      at,
    });
  });
  return { id, url: target.href, events: types, secret };
}

/**
 * A new secret; the previous one keeps signing beside it for a day (deliveries carry both
 * signatures), so a receiver switches without missing one.
 */
export async function rotateSecret(
  app: AppContext,
  endpointId: string,
  opts: { accountId?: string } = {},
) {
  const ep = await endpointOf(app, opts.accountId, endpointId);
  const secret = newSecret();
  const expires = new Date(app.clock.now().getTime() + PREVIOUS_SECRET_TTL_MS).toISOString();
  await app.db
    .updateTable('webhook_endpoints')
    .set({ secret, previous_secret: ep.secret, previous_secret_expires_at: expires })
    .where('id', '=', endpointId)
    .execute();
  return { id: endpointId, secret, previous_secret_expires_at: expires };
}

export async function listEndpoints(app: AppContext, accountId: string) {
  const rows = await app.db
    .selectFrom('webhook_endpoints')
    .select(['id', 'url', 'event_types', 'created_at', 'disabled_at'])
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .execute();
  return rows.map(({ event_types, ...r }) => ({
    ...r,
    events: decode('webhook_endpoints.event_types', event_types),
  }));
}

/** The newest deliveries of an account's endpoints, each with its attempts. */
export async function listDeliveries(app: AppContext, accountId: string, limit: number) {
  const deliveries = await app.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select([
      'd.id',
      'd.endpoint_id',
      'd.event_id',
      'd.event_type',
      'd.status',
      'd.attempts',
      'd.last_status_code',
      'd.last_error',
      'd.next_attempt_at',
      'd.created_at',
      'd.delivered_at',
    ])
    .where('e.account_id', '=', accountId)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit)
    .execute();
  if (deliveries.length === 0) return [];
  const attempts = await app.db
    .selectFrom('webhook_attempts')
    .select(['delivery_id', 'attempt', 'at', 'status_code', 'error', 'duration_ms'])
    .where(
      'delivery_id',
      'in',
      deliveries.map((d) => d.id),
    )
    .orderBy('attempt')
    .execute();
  return deliveries.map((d) => ({
    ...d,
    attempt_log: attempts
      .filter((a) => a.delivery_id === d.id)
      .map(({ delivery_id: _d, ...a }) => a),
  }));
}

/**
 * Sends a failed delivery of this account again, once, now (one still being retried has
 * its own next attempt: sending it twice would only make duplicates). Every attempt
 * stays in its log.
 */
export async function retryDelivery(app: AppContext, accountId: string, id: string) {
  const d = await app.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select(['d.id', 'd.status', 'e.disabled_at'])
    .where('d.id', '=', id)
    .where('e.account_id', '=', accountId)
    .executeTakeFirst();
  if (!d) throw notFound();
  if (d.status !== 'failed') throw conflict('delivery: only a failed delivery is sent again');
  if (d.disabled_at) throw conflict('delivery: its endpoint is disabled');
  const at = app.clock.now().toISOString();
  await app.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', next_attempt_at: at })
      .where('id', '=', d.id)
      .execute();
    await enqueue(trx, WEBHOOK_DELIVER, { delivery: d.id }, { now: at, maxAttempts: 1 });
  });
}

/**
 * The endpoint; with `accountId`, only that account's: another account's endpoint is as
 * unknown as a made-up id (the same `not found`).
 */
async function endpointOf(app: AppContext, accountId: string | undefined, id: string) {
  const ep = await app.db
    .selectFrom('webhook_endpoints')
    .select(['id', 'account_id', 'url', 'disabled_at', 'secret'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!ep || (accountId !== undefined && ep.account_id !== accountId)) {
    throw new AppError('not_found', `endpoint ${id}: not found`);
  }
  return ep;
}

/**
 * Pauses an endpoint (nothing is queued for it, and what was waiting is cancelled at its
 * next attempt, deliver.ts) or resumes it, also one a receiver's 410 disabled. Events of
 * the pause are not sent afterwards: a receiver that needs them reads the stories.
 */
export async function setEndpointPaused(
  app: AppContext,
  opts: { accountId?: string; id: string; paused: boolean; actor: string },
) {
  const ep = await endpointOf(app, opts.accountId, opts.id);
  const at = app.clock.now().toISOString();
  await app.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('webhook_endpoints')
      .set({ disabled_at: opts.paused ? (ep.disabled_at ?? at) : null })
      .where('id', '=', ep.id)
      .execute();
    await writeAudit(trx, {
      accountId: ep.account_id,
      actor: opts.actor,
      action: opts.paused ? 'webhook.paused' : 'webhook.resumed',
      details: { endpoint: ep.id, url: ep.url },
      at,
    });
  });
  return { id: ep.id, paused: opts.paused };
}

/**
 * Deletes an endpoint with its deliveries and their attempts; queued jobs find nothing.
 * It is paused first, in a commit of its own, so no new delivery is queued for it; then,
 * holding the endpoint and its deliveries, what an event or an attempt in flight added
 * meanwhile is seen and deleted with the rest.
 */
export async function deleteEndpoint(
  app: AppContext,
  opts: { accountId?: string; id: string; actor: string },
) {
  const ep = await endpointOf(app, opts.accountId, opts.id);
  const at = app.clock.now().toISOString();
  await app.db
    .updateTable('webhook_endpoints')
    .set({ disabled_at: ep.disabled_at ?? at })
    .where('id', '=', ep.id)
    .execute();
  await inTransaction(app, async (app) => {
    const trx = app.db;
    await lockRow(trx, 'webhook_endpoints', { id: ep.id });
    const deliveries = await lockRows(trx, 'webhook_deliveries', { endpoint_id: ep.id });
    if (deliveries.length > 0) {
      await trx.deleteFrom('webhook_attempts').where('delivery_id', 'in', deliveries).execute();
    }
    await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', ep.id).execute();
    await trx.deleteFrom('webhook_endpoints').where('id', '=', ep.id).execute();
    await writeAudit(trx, {
      accountId: ep.account_id,
      actor: opts.actor,
      action: 'webhook.deleted',
      details: { endpoint: ep.id, url: ep.url },
      at,
    });
  });
  return { id: ep.id };
}
