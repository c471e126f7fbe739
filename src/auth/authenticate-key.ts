import type { AppContext } from '../context.js';
import { afterPass, type Db } from '../db/database.js';
import { decode } from '../db/json-columns.js';
import { prepared } from '../db/prepared.js';
import type { Bool, Plan, Role } from '../db/schema.js';
import { AppError, forbidden } from '../errors.js';
import type { RateWindow } from '../http/rate-limiter.js';
import { BrandHost } from '../operations/schemas.js';
import { type Actor, brandReadAhead, delegatedTo, hasApiAccess } from '../policy.js';
import { apiKeyLookup, apiKeyMatches } from './api-keys.js';
import { addressBucket } from './client-address.js';
import { effectivePlan } from './effective-plan.js';

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
 * Counts a failed credential against the client address; answers the error to throw: 401,
 * or 429 once the address is past AUTH_FAILURES_PER_MINUTE failures this minute. Only
 * failures count and a valid credential is never refused for its address's failures
 * (the caller looks it up first), so bad keys from a shared NAT do not lock out the good
 * ones behind it. Guessing is not made slow by this (a valid key gets through whatever the
 * count, so the answer still tells valid from invalid): it is hopeless, a key holds 256
 * random bits and a token as many; the 429 tells a misbehaving client to back off.
 */
export async function failedCredential(
  app: AppContext,
  clientAddress: string,
  now: number,
  text?: string,
): Promise<AppError> {
  const limit = app.config.authFailuresPerMinute;
  const w = await app.limiter.hit(`authfail:${addressBucket(clientAddress)}`, WINDOW_MS);
  if (w.count > limit) return tooMany(limit, w, now);
  return new AppError('unauthenticated', text, rateHeaders(limit, w, now));
}

/** Counts a call in its caller's window (a key, or a user in an account); 429 past it. */
export async function countCall(
  app: AppContext,
  bucket: string,
  now: number,
): Promise<RateHeaders> {
  const limit = app.config.rateLimitPerMinute;
  const w = await app.limiter.hit(bucket, WINDOW_MS);
  if (w.count > limit) throw tooMany(limit, w, now);
  return rateHeaders(limit, w, now);
}

/**
 * Resolves an API key to its actor on every call (so a revocation holds on the next
 * request), counts the call in the key's window, and applies the plan gate. Failed
 * attempts are counted per client address (failedCredential).
 */
export async function authenticateKey(
  app: AppContext,
  rawKey: string | undefined,
  clientAddress: string,
  /** The brand host the request names, if any: read in the same statement as the key. */
  brandHost?: string,
): Promise<{ actor: Actor; headers: RateHeaders }> {
  const now = app.clock.now().getTime();
  // A malformed key is refused without a lookup; a well-formed one is looked up by its
  // indexed lookup part and compared in constant time, whatever its address has failed.
  // Only a well-formed host, as the operation will have it once its input is parsed: a
  // hostile value (a NUL, megabytes) must reach the database no sooner than before.
  const host = brandHost === undefined ? undefined : BrandHost.safeParse(brandHost).data;
  const row = await findKey(app, rawKey, host ?? null);
  if (!row) throw await failedCredential(app, clientAddress, now);
  const headers = await countCall(app, `key:${row.id}`, now);

  const plan = effectivePlan(row, new Date(now));
  if (!hasApiAccess(plan)) {
    const e = forbidden('the plan has no API access');
    Object.assign(e.headers, headers);
    throw e;
  }
  if (!row.last_used_at || now - Date.parse(row.last_used_at) > LAST_USED_GRANULARITY_MS) {
    await recordUse(app.db, row.id, new Date(now).toISOString());
  }
  const actor: Actor = {
    kind: 'key',
    keyId: row.id,
    accountId: row.account_id,
    plan,
    role: row.role,
    scope: row.scope === null ? null : decode('api_keys.scope', row.scope),
  };
  if (host !== undefined) brandReadAhead(actor, host, brandOf(row));
  return { actor, headers };
}

/** The keys first used this minute in the pass under way, by database, and their write. */
const pendingUses = new WeakMap<Db, { ids: string[]; at: string; written: Promise<void> }>();

/**
 * Records that a key was used, with the other keys first used this minute in the same pass
 * of the event loop (the key reads of a turn run in one pass: gatherReads): one UPDATE for
 * them all once the pass is over. Each key comes due once a minute, so a busy server
 * meets a burst of them (every key of a pool in the bench's third round); one write each
 * cost ~500 µs on SQLite with two workers taking the write lock in turn. The request waits
 * for the write, as before. `at` is the pass's latest time: within the minute it marks.
 */
function recordUse(db: Db, id: string, at: string): Promise<void> {
  let batch = pendingUses.get(db);
  if (!batch) {
    // Once the pass is over, every request of it has come by here.
    const passOver = new Promise<void>((resolve) => afterPass(resolve));
    const b = {
      ids: [] as string[],
      at,
      written: passOver.then(async () => {
        pendingUses.delete(db);
        for (let i = 0; i < b.ids.length; i += 1000) {
          await db
            .updateTable('api_keys')
            .set({ last_used_at: b.at })
            .where('id', 'in', b.ids.slice(i, i + 1000))
            .execute();
        }
      }),
    };
    pendingUses.set(db, b);
    batch = b;
  }
  batch.ids.push(id);
  if (at > batch.at) batch.at = at;
  return batch.written;
}

/** The brand read with the key, as brandByHost answers it (undefined: no such brand). */
function brandOf(row: KeyRow) {
  if (row.brand_id === null) return undefined;
  return {
    id: row.brand_id,
    account_id: row.brand_account_id!,
    host: row.brand_host!,
    name: row.brand_name!,
    verified: row.brand_verified as Bool,
    delegated: row.brand_delegated,
  };
}

/**
 * The key and its account and, when the request names a brand, that brand as brandFor
 * reads it (brandReadAhead): one statement where there were two.
 */
const keyByLookup = prepared<{ lookup: string; host: string | null }, KeyRow>(
  'api key by lookup, with the brand the request names',
  (db, p) =>
    db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .leftJoin('brands as b', (j) => j.on('b.host', '=', p('host')))
      .select([
        'api_keys.id',
        'api_keys.account_id',
        'api_keys.secret_hash',
        'api_keys.role',
        'api_keys.scope',
        'api_keys.revoked_at',
        'api_keys.last_used_at',
        'accounts.plan',
        'accounts.trial_plan',
        'accounts.trial_ends_at',
        'b.id as brand_id',
        'b.account_id as brand_account_id',
        'b.host as brand_host',
        'b.name as brand_name',
        'b.verified as brand_verified',
      ])
      .select((eb) => delegatedTo(eb, eb.ref('api_keys.account_id')).as('brand_delegated'))
      .where('api_keys.lookup', '=', p('lookup')),
  { gather: true },
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
  trial_plan: Plan | null;
  trial_ends_at: string | null;
  /** The brand named by the request: all null when there is none, or no such brand. */
  brand_id: string | null;
  brand_account_id: string | null;
  brand_host: string | null;
  brand_name: string | null;
  brand_verified: number | null;
  brand_delegated: unknown;
}

async function findKey(app: AppContext, rawKey: string | undefined, host: string | null) {
  const lookup = rawKey ? apiKeyLookup(rawKey) : null;
  if (!rawKey || !lookup) return undefined;
  const row = await keyByLookup.first(app.db, { lookup, host });
  if (!row || row.revoked_at !== null || !apiKeyMatches(rawKey, row.secret_hash)) return undefined;
  return row;
}
