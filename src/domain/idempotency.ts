import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';

/**
 * The records behind Idempotency-Key (REST POSTs): per API key and key, the request's
 * fingerprint and, once done, its answer, kept 24 hours.
 */
const TTL_MS = 24 * 60 * 60 * 1000;
/**
 * An in-progress record older than this belongs to a request that died; it may be taken
 * over. Safe because an operation and its stored answer commit in one transaction: a
 * record still in progress means the operation's writes never committed.
 */
const STALE_MS = 60_000;

export type Begin = { kind: 'execute' } | { kind: 'replay'; status: number; body: string };

/**
 * Claims (api key, Idempotency-Key) for this request. The primary key makes the claim
 * atomic on both databases, so among concurrent retries exactly one executes.
 */
export async function beginIdempotent(
  app: AppContext,
  keyId: string,
  idemKey: string,
  print: string,
): Promise<Begin> {
  const now = app.clock.now();
  const record = {
    api_key_id: keyId,
    idem_key: idemKey,
    fingerprint: print,
    state: 'in_progress' as const,
    response_status: null,
    response_body: null,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + TTL_MS).toISOString(),
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await app.db
      .insertInto('idempotency_records')
      .values(record)
      .onConflict((oc) => oc.columns(['api_key_id', 'idem_key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { kind: 'execute' };

    const existing = await app.db
      .selectFrom('idempotency_records')
      .selectAll()
      .where('api_key_id', '=', keyId)
      .where('idem_key', '=', idemKey)
      .executeTakeFirst();
    if (!existing) continue; // expired and swept in between: claim again
    if (existing.expires_at <= record.created_at) {
      await app.db
        .deleteFrom('idempotency_records')
        .where('api_key_id', '=', keyId)
        .where('idem_key', '=', idemKey)
        .where('expires_at', '=', existing.expires_at)
        .execute();
      continue;
    }
    if (existing.fingerprint !== print) throw new AppError('idempotency_mismatch');
    if (existing.state === 'done') {
      return { kind: 'replay', status: existing.response_status!, body: existing.response_body! };
    }
    const stale = Date.parse(existing.created_at) < now.getTime() - STALE_MS;
    if (stale) {
      // Compare-and-swap on created_at: only one of several retries takes the record over.
      const taken = await app.db
        .updateTable('idempotency_records')
        .set({ created_at: record.created_at })
        .where('api_key_id', '=', keyId)
        .where('idem_key', '=', idemKey)
        .where('state', '=', 'in_progress')
        .where('created_at', '=', existing.created_at)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) return { kind: 'execute' };
    }
    throw new AppError('idempotency_in_progress');
  }
  throw new AppError('idempotency_in_progress');
}

export async function finishIdempotent(
  app: AppContext,
  {
    keyId,
    idemKey,
    status,
    body,
  }: { keyId: string; idemKey: string; status: number; body: string },
): Promise<void> {
  await app.db
    .updateTable('idempotency_records')
    .set({ state: 'done', response_status: status, response_body: body })
    .where('api_key_id', '=', keyId)
    .where('idem_key', '=', idemKey)
    .execute();
}

/** A request that failed for reasons of ours (5xx) releases its key so a retry can run. */
export async function releaseIdempotent(app: AppContext, keyId: string, idemKey: string) {
  await app.db
    .deleteFrom('idempotency_records')
    .where('api_key_id', '=', keyId)
    .where('idem_key', '=', idemKey)
    .where('state', '=', 'in_progress')
    .execute();
}

/** Deletes records past their 24 hours; returns how many went. */
export async function sweepExpiredIdempotency(app: AppContext): Promise<number> {
  const gone = await app.db
    .deleteFrom('idempotency_records')
    .where('expires_at', '<=', app.clock.now().toISOString())
    .executeTakeFirst();
  return Number(gone.numDeletedRows);
}
