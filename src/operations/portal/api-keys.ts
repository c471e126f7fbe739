import { z } from 'zod';
import { createKey, revokeKey } from '../../domain/api-key-admin.js';
import { forbidden, notFound } from '../../errors.js';
import { actorLabel, hasRole } from '../../policy.js';
import { Role } from '../schemas.js';
import { definePortalOperation } from './define.js';

/**
 * API keys are made in the app by owners and admins (never by a key: create_api_key is
 * always 403). A key's role is at most its maker's, and its scope names brands the
 * account reaches.
 */
export const listApiKeys = definePortalOperation({
  access: { minRole: 'admin' },
  input: z.strictObject({}),
  async handler({ app, actor }) {
    const keys = await app.db
      .selectFrom('api_keys')
      .select(['id', 'name', 'role', 'scope', 'created_at', 'last_used_at', 'revoked_at'])
      .where('account_id', '=', actor.accountId)
      .orderBy('created_at', 'desc')
      .execute();
    return {
      keys: keys.map((k) => ({ ...k, scope: k.scope ? (JSON.parse(k.scope) as string[]) : null })),
    };
  },
});

export const createApiKeyInApp = definePortalOperation({
  access: { minRole: 'admin' },
  input: z.strictObject({
    name: z
      .string()
      .trim()
      .min(1, 'must be 1 to 80 characters')
      .max(80, 'must be 1 to 80 characters'),
    role: Role,
    scope: z.union([z.literal('full'), z.array(z.string()).min(1, 'name at least one brand')]),
  }),
  async handler({ app, actor }, input) {
    if (!hasRole(actor, input.role)) throw forbidden('a key cannot have a higher role than yours');
    return createKey(app, {
      accountId: actor.accountId,
      role: input.role,
      scope: input.scope === 'full' ? null : input.scope,
      name: input.name,
      actor: actorLabel(actor),
    });
  },
});

export const revokeApiKeyInApp = definePortalOperation({
  access: { minRole: 'admin' },
  input: z.strictObject({ id: z.string().min(1).max(100) }),
  async handler({ app, actor }, input) {
    // Another account's key is as unknown as a made-up id.
    const key = await app.db
      .selectFrom('api_keys')
      .select('id')
      .where('id', '=', input.id)
      .where('account_id', '=', actor.accountId)
      .executeTakeFirst();
    if (!key) throw notFound();
    await revokeKey(app, key.id, actorLabel(actor));
    return { ok: true };
  },
});
