import { z } from 'zod';
import { createKey, listKeys, revokeKey } from '../../domain/api-key-admin.js';
import { forbidden } from '../../errors.js';
import { API_PLANS, actorLabel, hasRole } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { Ok, Role, Timestamp } from '../schemas.js';

/**
 * API keys are made in the app by owners and admins (never by a key: create_api_key is
 * always 403). A key's role is at most its maker's, and its scope names brands the
 * account reaches.
 */
export const listApiKeys = defineOperation({
  id: 'list_api_keys',
  summary: "The account's API keys, newest first",
  input: z.strictObject({}),
  output: z.object({
    keys: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        role: Role,
        scope: z.array(z.string()).nullable().describe('brand hosts, or null for full scope'),
        created_at: Timestamp,
        last_used_at: Timestamp.nullable(),
        revoked_at: Timestamp.nullable(),
      }),
    ),
  }),
  access: { minRole: 'admin' },
  portal: true,
  async handler({ app, actor }) {
    return { keys: await listKeys(app, actor.accountId) };
  },
});

export const createApiKeyInApp = defineOperation({
  id: 'create_api_key_in_app',
  summary: 'Create an API key (its secret is shown once)',
  input: z.strictObject({
    name: z
      .string()
      .trim()
      .min(1, 'must be 1 to 80 characters')
      .max(80, 'must be 1 to 80 characters'),
    role: Role,
    scope: z.union([z.literal('full'), z.array(z.string()).min(1, 'name at least one brand')]),
  }),
  output: z.object({ id: z.string(), key: z.string().describe('the secret, shown once') }),
  // A key of a plan without API access could never be used: not made at all.
  access: { minRole: 'admin', plans: API_PLANS },
  portal: true,
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

export const revokeApiKeyInApp = defineOperation({
  id: 'revoke_api_key_in_app',
  summary: 'Revoke an API key of the account',
  input: z.strictObject({ id: z.string().min(1).max(100) }),
  output: z.object({ ok: Ok }),
  access: { minRole: 'admin' },
  portal: true,
  async handler({ app, actor }, input) {
    await revokeKey(app, input.id, actorLabel(actor), { accountId: actor.accountId });
    return { ok: true };
  },
});
