import { createHash } from 'node:crypto';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Db } from '../db/database.js';

/**
 * oidc-provider's storage in the service's own database (both dialects): one row per
 * model instance in `oauth_records`. The row key is the SHA-256 of the id, because for
 * tokens and codes the id is the bearer secret itself; for those the payload's copy of it
 * (`jti`) is dropped before storing and restored from the id the caller presents.
 * Sessions keep theirs: they are also found by uid, and their id only ever lives in the
 * browser's HttpOnly cookie of the sign-in page.
 */
export function storeAdapterFactory(db: Db) {
  return (kind: string): Adapter => new StoreAdapter(db, kind);
}

const digest = (id: string) => createHash('sha256').update(id).digest('base64url');

/** Models whose id is a credential handed to a client. */
const BEARER_KINDS = new Set([
  'AccessToken',
  'RefreshToken',
  'AuthorizationCode',
  'RegistrationAccessToken',
  'ClientCredentials',
  'InitialAccessToken',
]);

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
      expires_at: expiresIn ? new Date(Date.now() + expiresIn * 1000).toISOString() : null,
    };
    await this.db
      .insertInto('oauth_records')
      .values({ kind: this.kind, id: digest(id), consumed_at: null, ...row })
      .onConflict((oc) => oc.columns(['kind', 'id']).doUpdateSet(row))
      .execute();
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
    // Only sessions are looked up by uid, and they keep their own jti.
    return row && this.revive(row, '');
  }

  /** Device flow is not enabled; nothing is ever stored under a user code. */
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }

  async consume(id: string): Promise<void> {
    await this.db
      .updateTable('oauth_records')
      .set({ consumed_at: new Date().toISOString() })
      .where('kind', '=', this.kind)
      .where('id', '=', digest(id))
      .execute();
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
    id: string,
  ): AdapterPayload | undefined {
    if (row.expires_at && Date.parse(row.expires_at) <= Date.now()) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    if ((payload.jti as unknown) === true) payload.jti = id;
    if (row.consumed_at) payload.consumed = Math.floor(Date.parse(row.consumed_at) / 1000);
    return payload;
  }
}

/** Deletes expired OAuth records (run by the hourly sweep; real time, as oidc-provider's). */
export async function sweepExpiredOAuth(db: Db): Promise<void> {
  await db.deleteFrom('oauth_records').where('expires_at', '<', new Date().toISOString()).execute();
}
