import type { AppContext } from '../context.js';
import { decode, encode } from '../db/json-columns.js';
import { newId } from '../ids.js';

/**
 * Portal sessions as the database keeps them: user_tokens of purpose `session`, by the
 * SHA-256 of the cookie's token only, with the account the user works in.
 */
export async function storeSession(
  app: AppContext,
  s: { userId: string; accountId: string; tokenHash: string; ttlMs: number },
): Promise<void> {
  const now = app.clock.now();
  await app.db
    .insertInto('user_tokens')
    .values({
      id: newId('tok'),
      user_id: s.userId,
      purpose: 'session',
      token_hash: s.tokenHash,
      data: encode('user_tokens.data', { account: s.accountId }),
      expires_at: new Date(now.getTime() + s.ttlMs).toISOString(),
      used_at: null,
      created_at: now.toISOString(),
    })
    .execute();
}

/** The live session behind a token hash: its user and the account it was in, or undefined. */
export async function findSession(app: AppContext, tokenHash: string) {
  const row = await app.db
    .selectFrom('user_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.user_id', 't.data', 'u.email', 'u.name', 'u.time_zone'])
    .where('t.token_hash', '=', tokenHash)
    .where('t.purpose', '=', 'session')
    .where('t.used_at', 'is', null)
    .where('t.expires_at', '>', app.clock.now().toISOString())
    .executeTakeFirst();
  if (!row) return undefined;
  const { account } = row.data ? decode('user_tokens.data', row.data) : {};
  return {
    userId: row.user_id,
    email: row.email,
    name: row.name,
    timeZone: row.time_zone,
    accountId: account,
  };
}

export async function setSessionAccount(app: AppContext, tokenHash: string, accountId: string) {
  await app.db
    .updateTable('user_tokens')
    .set({ data: encode('user_tokens.data', { account: accountId }) })
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', 'session')
    .execute();
}

/** Ends one session (the row is marked used). */
export async function endStoredSession(app: AppContext, tokenHash: string): Promise<void> {
  await app.db
    .updateTable('user_tokens')
    .set({ used_at: app.clock.now().toISOString() })
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', 'session')
    .execute();
}

/** Ends every session of a user (after a password reset or change). */
export async function endAllSessions(app: AppContext, userId: string): Promise<void> {
  await app.db
    .updateTable('user_tokens')
    .set({ used_at: app.clock.now().toISOString() })
    .where('user_id', '=', userId)
    .where('purpose', '=', 'session')
    .where('used_at', 'is', null)
    .execute();
}
