import { z } from 'zod';
import { partnerDelegations } from '../../domain/delegations.js';
import { defineOperation } from '../operation.js';

export const listDelegations = defineOperation({
  id: 'list_delegations',
  summary: 'List the delegations of client brands to this account',
  description:
    'Client brands delegated to this partner account, newest first, with their status (pending, active, dropped, revoked). Only the brands the caller may read are listed.',
  input: z.object({}),
  output: z.object({
    delegations: z.array(
      z.object({
        brand_key: z.string().describe('client brand host'),
        status: z.enum(['pending', 'active', 'dropped', 'revoked']),
        client: z.string().describe('client account key'),
      }),
    ),
  }),
  access: {},
  rest: { method: 'GET', path: '/v1/delegations' },
  portal: true,
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  async handler({ app, actor }) {
    return { delegations: await partnerDelegations(app, actor.accountId, actor.scope) };
  },
});
