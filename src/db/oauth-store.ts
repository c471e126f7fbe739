import { hash } from 'node:crypto';
import { type Adapter, type AdapterPayload, errors } from 'oidc-provider';
import type { Db } from './database.js';
import { isDatabaseOutage } from './errors.js';

/**
 * oidc-provider's storage in the service's own database (both dialects): one row per
 * model instance in `oauth_records`. The row key is the SHA-256 of the id, because for
 * tokens and codes the id is the bearer secret itself; for those the payload's copy of it
 * (`jti`) is dropped before storing and restored from the id the caller presents.
 */
export function storeAdapterFactory(db: Db) {
  return (kind: string): Adapter => withOutageAs503(new StoreAdapter(db, kind));
}

/**
 * oidc-provider answers 500 for any error its storage throws; an unreachable database
 * is an outage, so it becomes the OAuth error `temporarily_unavailable` with status 503.
 */
function withOutageAs503(adapter: StoreAdapter): Adapter {
  return new Proxy(adapter, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        try {
          return await value.apply(target, args);
        } catch (err) {
          if (!isDatabaseOutage(err)) throw err;
          const e = new errors.OIDCProviderError(503, 'temporarily_unavailable', { cause: err });
          e.expose = true;
          e.error_description = 'the service is temporarily unavailable';
          throw e;
        }
      };
    },
  });
}

const digest = (id: string) => hash('sha256', id, 'base64url');

/**
 * Models whose id is a credential: tokens and codes handed to clients, and sessions (the
 * id is the sign-in cookie). Sessions are also found by uid, only to be read.
 */
const BEARER_KINDS = new Set([
  'Session',
  'AccessToken',
  'RefreshToken',
  'AuthorizationCode',
  'RegistrationAccessToken',
  'ClientCredentials',
  'InitialAccessToken',
]);

/**
 * A dynamically registered client that never completes a sign-in is deleted after this
 * long (by the hourly sweep); its first grant makes it permanent.
 */
export const UNUSED_CLIENT_TTL_MS = 7 * 24 * 3600_000;

class StoreAdapter implements Adapter {
  constructor(
    private readonly db: Db,
    private readonly kind: string,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const { jti, ...rest } = payload;
    const hidden = BEARER_KINDS.has(this.kind) && jti === id;
    const stored = JSON.stringify(hidden ? { ...rest, jti: true } : payload);
    const row = {
      payload: stored,
      grant_id: payload.grantId ?? null,
      uid: payload.uid ?? null,
      subject: payload.accountId ?? null,
      expires_at: expiresIn
        ? new Date(Date.now() + expiresIn * 1000).toISOString()
        : this.kind === 'Client'
          ? new Date(Date.now() + UNUSED_CLIENT_TTL_MS).toISOString()
          : null,
    };
    await this.db
      .insertInto('oauth_records')
      .values({ kind: this.kind, id: digest(id), consumed_at: null, ...row })
      .onConflict((oc) => oc.columns(['kind', 'id']).doUpdateSet(row))
      .execute();
    // A client someone allowed is in use: it no longer expires.
    if (this.kind === 'Grant' && typeof payload.clientId === 'string') {
      await this.db
        .updateTable('oauth_records')
        .set({ expires_at: null })
        .where('kind', '=', 'Client')
        .where('id', '=', digest(payload.clientId))
        .where('expires_at', 'is not', null)
        .execute();
    }
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const row = await this.db
      .selectFrom('oauth_records')
      .select(['payload', 'consumed_at', 'expires_at'])
      .where('kind', '=', this.kind)
      .where('id', '=', digest(id))
      .executeTakeFirst();
    return row && this.revive(row, id);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const row = await this.db
      .selectFrom('oauth_records')
      .select(['payload', 'consumed_at', 'expires_at'])
      .where('kind', '=', this.kind)
      .where('uid', '=', uid)
      .executeTakeFirst();
    // Only sessions are looked up by uid, and only read: their id stays unknown here.
    return row && this.revive(row, undefined);
  }

  /** Device flow is not enabled; nothing is ever stored under a user code. */
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }

  /**
   * Marks a code or refresh token used, once: the library checks `consumed` before it
   * calls this, so two concurrent redemptions both get here, and only the first may win.
   * The loser is a replay: everything issued under its grant is revoked.
   */
  async consume(id: string): Promise<void> {
    const key = digest(id);
    const r = await this.db
      .updateTable('oauth_records')
      .set({ consumed_at: new Date().toISOString() })
      .where('kind', '=', this.kind)
      .where('id', '=', key)
      .where('consumed_at', 'is', null)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) > 0) return;
    const row = await this.db
      .selectFrom('oauth_records')
      .select('grant_id')
      .where('kind', '=', this.kind)
      .where('id', '=', key)
      .executeTakeFirst();
    if (row?.grant_id) {
      // As oidc-provider's own replay handling does: the grant and all issued under it.
      await this.revokeByGrantId(row.grant_id);
      await this.db
        .deleteFrom('oauth_records')
        .where('kind', '=', 'Grant')
        .where('id', '=', digest(row.grant_id))
        .execute();
    }
    throw new errors.InvalidGrant('grant request is invalid');
  }

  async destroy(id: string): Promise<void> {
    await this.db
      .deleteFrom('oauth_records')
      .where('kind', '=', this.kind)
      .where('id', '=', digest(id))
      .execute();
  }

  /** Revoking a grant removes everything issued under it, whatever its kind. */
  async revokeByGrantId(grantId: string): Promise<void> {
    await this.db.deleteFrom('oauth_records').where('grant_id', '=', grantId).execute();
  }

  private revive(
    row: { payload: string; consumed_at: string | null; expires_at: string | null },
    id: string | undefined,
  ): AdapterPayload | undefined {
    if (row.expires_at && Date.parse(row.expires_at) <= Date.now()) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    if ((payload.jti as unknown) === true) {
      if (id === undefined) delete payload.jti;
      else payload.jti = id;
    }
    if (row.consumed_at) payload.consumed = Math.floor(Date.parse(row.consumed_at) / 1000);
    return payload;
  }
}

/** Deletes expired OAuth records (run by the hourly sweep; real time, as oidc-provider's). */
export async function sweepExpiredOAuth(db: Db): Promise<void> {
  await db.deleteFrom('oauth_records').where('expires_at', '<', new Date().toISOString()).execute();
}

/**
 * A refresh's answer, kept for the grace period after the refresh token it rotated
 * (src/oauth/refresh-grace.ts): a row of kind `RefreshAnswer` under the digest of the
 * refresh request's credentials, claimed empty by the request that runs the refresh, then
 * holding its answer sealed with a key only their holder can derive.
 */
const REFRESH_ANSWER = 'RefreshAnswer';

/** Claims a refresh; false when another request has claimed the same one already. */
export async function claimRefreshAnswer(
  db: Db,
  credential: string,
  until: Date,
): Promise<boolean> {
  const r = await db
    .insertInto('oauth_records')
    .values({
      kind: REFRESH_ANSWER,
      id: digest(credential),
      payload: '',
      grant_id: null,
      uid: null,
      consumed_at: null,
      expires_at: until.toISOString(),
      subject: null,
      last_used_at: null,
    })
    .onConflict((oc) => oc.columns(['kind', 'id']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
}

/**
 * Takes over a claim nobody answered (its request died): it is ours when it is still
 * empty and still the one seen (`seen`, its end), and then ends at `until`.
 */
export async function takeOverRefreshAnswer(
  db: Db,
  credential: string,
  seen: Date,
  until: Date,
): Promise<boolean> {
  const r = await db
    .updateTable('oauth_records')
    .set({ expires_at: until.toISOString() })
    .where('kind', '=', REFRESH_ANSWER)
    .where('id', '=', digest(credential))
    .where('payload', '=', '')
    .where('expires_at', '=', seen.toISOString())
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function saveRefreshAnswer(db: Db, credential: string, sealed: string): Promise<void> {
  await db
    .updateTable('oauth_records')
    .set({ payload: sealed })
    .where('kind', '=', REFRESH_ANSWER)
    .where('id', '=', digest(credential))
    .execute();
}

/** The claim on a refresh: its sealed answer ('' while running) and its end. */
export async function findRefreshAnswer(
  db: Db,
  credential: string,
): Promise<{ sealed: string; until: Date } | undefined> {
  const row = await db
    .selectFrom('oauth_records')
    .select(['payload', 'expires_at'])
    .where('kind', '=', REFRESH_ANSWER)
    .where('id', '=', digest(credential))
    .executeTakeFirst();
  return row && { sealed: row.payload, until: new Date(row.expires_at ?? 0) };
}

export async function dropRefreshAnswer(db: Db, credential: string): Promise<void> {
  await db
    .deleteFrom('oauth_records')
    .where('kind', '=', REFRESH_ANSWER)
    .where('id', '=', digest(credential))
    .execute();
}

/** A member's grants (those still valid at `now`, when given), with what their payload says. */
async function subjectGrants(db: Db, subject: string, now?: Date) {
  let q = db
    .selectFrom('oauth_records')
    .select(['payload', 'last_used_at'])
    .where('kind', '=', 'Grant')
    .where('subject', '=', subject);
  if (now) {
    const at = now.toISOString();
    q = q.where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', at)]));
  }
  return (await q.execute()).map((g) => {
    const p = JSON.parse(g.payload) as { clientId: string; jti: string; iat: number };
    return { clientId: p.clientId, jti: p.jti, iat: p.iat, last_used_at: g.last_used_at };
  });
}

/**
 * A member's connected apps: their grants, by client, with the client's name and
 * redirect URIs, when it was first allowed and when a token of it was last used.
 */
export async function grantsOf(db: Db, subject: string, now: Date) {
  const grants = await subjectGrants(db, subject, now);
  const byClient = new Map<string, { connectedAt: number; lastUsedAt: string | null }>();
  for (const { clientId, iat, last_used_at } of grants) {
    const seen = byClient.get(clientId);
    const lastUsedAt =
      [seen?.lastUsedAt, last_used_at]
        .filter((x): x is string => !!x)
        .sort()
        .at(-1) ?? null;
    byClient.set(clientId, { connectedAt: Math.min(seen?.connectedAt ?? iat, iat), lastUsedAt });
  }
  if (byClient.size === 0) return [];
  const clients = await db
    .selectFrom('oauth_records')
    .select('payload')
    .where('kind', '=', 'Client')
    .where(
      'id',
      'in',
      [...byClient.keys()].map((id) => digest(id)),
    )
    .execute();
  const metadata = new Map(
    clients.map((c) => {
      const p = JSON.parse(c.payload) as {
        client_id: string;
        client_name?: string;
        redirect_uris?: string[];
      };
      return [p.client_id, p];
    }),
  );
  return [...byClient].map(([clientId, use]) => ({
    clientId,
    clientName: metadata.get(clientId)?.client_name ?? null,
    redirectUris: metadata.get(clientId)?.redirect_uris ?? [],
    connectedAt: new Date(use.connectedAt * 1000).toISOString(),
    lastUsedAt: use.lastUsedAt,
  }));
}

/**
 * Ends every grant of `clientId` to `subject`, and everything issued under them; false
 * when there was none.
 */
export async function revokeGrantsOf(db: Db, subject: string, clientId: string) {
  const ids = (await subjectGrants(db, subject))
    .filter((g) => g.clientId === clientId)
    .map((g) => g.jti);
  if (ids.length === 0) return false;
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('oauth_records').where('grant_id', 'in', ids).execute();
    await trx
      .deleteFrom('oauth_records')
      .where('kind', '=', 'Grant')
      .where(
        'id',
        'in',
        ids.map((id) => digest(id)),
      )
      .execute();
  });
  return true;
}

/**
 * Ends every grant of a membership and what was issued under them, in the caller's
 * transaction: for a member taken out of a team.
 */
export async function forgetSubject(db: Db, subject: string) {
  const ids = (await subjectGrants(db, subject)).map((g) => g.jti);
  if (ids.length > 0) await db.deleteFrom('oauth_records').where('grant_id', 'in', ids).execute();
  await db
    .deleteFrom('oauth_records')
    .where('kind', '=', 'Grant')
    .where('subject', '=', subject)
    .execute();
}

/** Notes a grant's use at /mcp, at most once a minute (one write, not one per call). */
export async function touchGrant(db: Db, grantId: string, now: Date): Promise<void> {
  const minuteAgo = new Date(now.getTime() - 60_000).toISOString();
  await db
    .updateTable('oauth_records')
    .set({ last_used_at: now.toISOString() })
    .where('kind', '=', 'Grant')
    .where('id', '=', digest(grantId))
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', minuteAgo)]))
    .execute();
}
