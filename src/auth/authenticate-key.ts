import type { AppContext } from '../context.js';
import { prepared } from '../db/prepared.js';
import type { Plan, Role } from '../db/schema.js';
import { AppError, forbidden } from '../errors.js';
import type { RateWindow } from '../http/rate-limiter.js';
import { type Actor, hasApiAccess } from '../policy.js';
import { apiKeyLookup, apiKeyMatches } from './api-keys.js';

const WINDOW_MS = 60_000;
/** last_used_at is informational: write it at most once a minute per key, not per request. */
const LAST_USED_GRANULARITY_MS = 60_000;

export interface RateHeaders {
  [name: string]: string;
}

export function rateHeaders(limit: number, w: RateWindow, now: number): RateHeaders {
  const reset = Math.max(1, Math.ceil((w.resetAt - now) / 1000));
  return {
    'ratelimit-limit': String(limit),
    'ratelimit-remaining': String(Math.max(0, limit - w.count)),
    'ratelimit-reset': String(reset),
  };
}

function tooMany(limit: number, w: RateWindow, now: number): AppError {
  const headers = rateHeaders(limit, w, now);
  return new AppError('rate_limited', undefined, {
    ...headers,
    'retry-after': headers['ratelimit-reset']!,
  });
}

/** The raw key from `x-api-key` or `Authorization: Bearer …`, or undefined. */
export function presentedKey(headers: Record<string, string | string[] | undefined>) {
  const x = headers['x-api-key'];
  if (typeof x === 'string' && x.length > 0) return x.trim();
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m) return m[1];
  }
  return undefined;
}

/**
 * Resolves an API key to its actor on every call (so a revocation holds on the next
 * request), counts the call in the key's window, and applies the plan gate. Failed
 * attempts are counted per client address; past the limit that address gets 429 before
 * any key is even looked at, so keys cannot be guessed at speed.
 */
export async function authenticateKey(
  app: AppContext,
  rawKey: string | undefined,
  clientAddress: string,
): Promise<{ actor: Actor; headers: RateHeaders }> {
  const now = app.clock.now().getTime();
  const failBucket = `authfail:${clientAddress}`;
  const failLimit = app.config.authFailuresPerMinute;
  const failures = await app.limiter.peek(failBucket);
  if (failures && failures.count >= failLimit) throw tooMany(failLimit, failures, now);

  const row = await findKey(app, rawKey);
  if (!row) {
    const w = await app.limiter.hit(failBucket, WINDOW_MS);
    throw new AppError('unauthenticated', undefined, rateHeaders(failLimit, w, now));
  }

  const limit = app.config.rateLimitPerMinute;
  const w = await app.limiter.hit(`key:${row.id}`, WINDOW_MS);
  if (w.count > limit) throw tooMany(limit, w, now);
  const headers = rateHeaders(limit, w, now);

  if (!hasApiAccess(row.plan)) {
    const e = forbidden();
    Object.assign(e.headers, headers);
    throw e;
  }
  if (!row.last_used_at || now - Date.parse(row.last_used_at) > LAST_USED_GRANULARITY_MS) {
    await app.db
      .updateTable('api_keys')
      .set({ last_used_at: new Date(now).toISOString() })
      .where('id', '=', row.id)
      .execute();
  }
  return {
    actor: {
      kind: 'key',
      keyId: row.id,
      accountId: row.account_id,
      plan: row.plan,
      role: row.role,
      scope: row.scope === null ? null : (JSON.parse(row.scope) as string[]),
    },
    headers,
  };
}

const keyByLookup = prepared<{ lookup: string }, KeyRow>((db, p) =>
  db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .select([
      'api_keys.id',
      'api_keys.account_id',
      'api_keys.secret_hash',
      'api_keys.role',
      'api_keys.scope',
      'api_keys.revoked_at',
      'api_keys.last_used_at',
      'accounts.plan',
    ])
    .where('api_keys.lookup', '=', p('lookup')),
);

interface KeyRow {
  id: string;
  account_id: string;
  secret_hash: string;
  role: Role;
  scope: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  plan: Plan;
}

async function findKey(app: AppContext, rawKey: string | undefined) {
  const lookup = rawKey ? apiKeyLookup(rawKey) : null;
  if (!rawKey || !lookup) return undefined;
  const row = await keyByLookup.first(app.db, { lookup });
  if (!row || row.revoked_at !== null || !apiKeyMatches(rawKey, row.secret_hash)) return undefined;
  return row;
}
