import type Provider from 'oidc-provider';
import { countCall, failedCredential, type RateHeaders } from '../auth/authenticate-key.js';
import { effectivePlan } from '../auth/effective-plan.js';
import type { AppContext } from '../context.js';
import { touchGrant } from '../db/oauth-store.js';
import { activeMember } from '../domain/accounts.js';
import type { Actor } from '../policy.js';
import { MCP_SCOPE, mcpResource } from './provider.js';
import { parseSubject } from './subject.js';

export const TOKEN_REFUSED = 'invalid, expired or revoked access token';

/**
 * Resolves an OAuth access token presented to /mcp into the signed-in user's actor. The
 * token and its grant are looked up in the store on every call (a revoked token fails at
 * once), it must be bound to this /mcp resource with the mcp scope, and the membership it
 * names is read again, so a member removed from the team loses access with their next call.
 * Failures count toward the client address's limit, like bad API keys: a valid token is
 * never refused for its address's failures.
 */
export async function authenticateToken(
  app: AppContext,
  provider: Provider,
  token: string,
  clientAddress: string,
): Promise<{ actor: Actor; headers: RateHeaders }> {
  const now = app.clock.now().getTime();
  const member = await findMember(app, provider, token);
  if (!member) throw await failedCredential(app, clientAddress, now, TOKEN_REFUSED);
  const headers = await countCall(app, `user:${member.user_id}:${member.account_id}`, now);
  return { actor: memberActor(member, new Date(now)), headers };
}

/** A signed-in member as the caller of operations. */
export function memberActor(
  member: NonNullable<Awaited<ReturnType<typeof activeMember>>>,
  now: Date,
): Actor {
  return {
    kind: 'user',
    userId: member.user_id,
    email: member.email,
    accountId: member.account_id,
    plan: effectivePlan(member, now),
    role: member.role,
    scope: null,
  };
}

async function findMember(app: AppContext, provider: Provider, token: string) {
  // Opaque tokens are URL-safe strings of 43 characters; anything else is not ours.
  if (!/^[A-Za-z0-9_-]{20,200}$/.test(token)) return undefined;
  const at = await provider.AccessToken.find(token);
  if (!at || at.aud !== mcpResource(app) || !at.scopes.has(MCP_SCOPE)) return undefined;
  // The grant must still stand: revoking it (a replayed refresh token, the user taking the
  // access back) ends every token issued under it, also one issued a moment after.
  if (!at.grantId || !(await provider.Grant.find(at.grantId))) return undefined;
  const subject = parseSubject(at.accountId);
  if (!subject) return undefined;
  const member = await activeMember(app, subject.accountId, subject.userId);
  if (member) await noteUse(app, at.grantId);
  return member;
}

/** When this process last noted each grant's use (bounded: oldest forgotten first). */
const noted = new Map<string, number>();

/**
 * The portal's Connected apps page shows when each app last used its access, to the
 * minute: a write at most once a minute per grant and process, and never a failed call
 * for its sake.
 */
async function noteUse(app: AppContext, grantId: string) {
  const now = app.clock.now();
  const last = noted.get(grantId);
  if (last !== undefined && now.getTime() - last < 60_000) return;
  noted.delete(grantId);
  noted.set(grantId, now.getTime());
  if (noted.size > 10_000) noted.delete(noted.keys().next().value!);
  try {
    await touchGrant(app.db, grantId, now);
  } catch (err) {
    app.log?.warn({ err }, "oauth: could not note a grant's last use");
  }
}
