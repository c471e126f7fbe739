import { generateApiKey } from '../auth/api-keys.js';
import { type AppContext, inTransaction } from '../context.js';
import { decode, encode } from '../db/json-columns.js';
import type { Role } from '../db/schema.js';
import { AppError, invalid } from '../errors.js';
import { newId } from '../ids.js';
import { requireAccount } from './accounts.js';
import { writeAudit } from './audit.js';
import { readableBrands } from './brands.js';

/** Creates a key; the secret is returned once and only its hash is kept. */
export async function createKey(
  app: AppContext,
  opts: { accountId: string; role: Role; scope: string[] | null; name?: string; actor: string },
): Promise<{ id: string; key: string }> {
  await requireAccount(app, opts.accountId);
  if (opts.scope !== null) {
    if (opts.scope.length === 0) throw invalid('scope: name at least one brand host, or full');
    const readable = await readableHosts(app, opts.accountId);
    const unknown = opts.scope.filter((h) => !readable.has(h));
    if (unknown.length > 0)
      throw invalid(`scope: not a brand of this account: ${unknown.join(', ')}`);
  }
  const k = generateApiKey();
  const id = newId('key');
  const now = app.clock.now().toISOString();
  await inTransaction(app, async (app) => {
    const trx = app.db;
    await trx
      .insertInto('api_keys')
      .values({
        id,
        account_id: opts.accountId,
        name: opts.name ?? `${opts.role} key`,
        lookup: k.lookup,
        secret_hash: k.secretHash,
        role: opts.role,
        scope: opts.scope === null ? null : encode('api_keys.scope', opts.scope),
        created_at: now,
        last_used_at: null,
        revoked_at: null,
      })
      .execute();
    await writeAudit(trx, {
      accountId: opts.accountId,
      actor: opts.actor,
      action: 'api_key.created',
      details: { key: id, role: opts.role, scope: opts.scope ?? 'full' },
      at: now,
    });
  });
  return { id, key: k.key };
}

/** Own brands and actively delegated client brands: what a key may be scoped to. */
async function readableHosts(app: AppContext, accountId: string): Promise<Set<string>> {
  return new Set((await readableBrands(app, accountId, null)).map((b) => b.brand));
}

/** The account's keys, newest first, with their scopes decoded. */
export async function listKeys(app: AppContext, accountId: string) {
  const keys = await app.db
    .selectFrom('api_keys')
    .select(['id', 'name', 'role', 'scope', 'created_at', 'last_used_at', 'revoked_at'])
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .execute();
  return keys.map((k) => ({ ...k, scope: k.scope ? decode('api_keys.scope', k.scope) : null }));
}

/**
 * Revokes a key (again: nothing changes). With `accountId`, another account's key is as
 * unknown as a made-up id.
 */
export async function revokeKey(
  app: AppContext,
  id: string,
  actor: string,
  opts: { accountId?: string } = {},
): Promise<void> {
  const now = app.clock.now().toISOString();
  await inTransaction(app, async (app) => {
    const trx = app.db;
    const key = await trx
      .selectFrom('api_keys')
      .select(['account_id', 'revoked_at'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!key || (opts.accountId !== undefined && key.account_id !== opts.accountId)) {
      throw new AppError('not_found', `key ${id}: not found`);
    }
    if (key.revoked_at !== null) return;
    await trx.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', id).execute();
    await writeAudit(trx, {
      accountId: key.account_id,
      actor,
      action: 'api_key.revoked',
      details: { key: id },
      at: now,
    });
  });
}
