import { z } from 'zod';
import { defineOperation } from '../operation.js';

export const listDelegations = defineOperation({
  id: 'list_delegations',
  summary: 'List the delegations of client brands to this account',
  description:
    'Client brands delegated to this partner account, newest first, with their status (pending, active, dropped, revoked). Brand-scoped keys see only their brands.',
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
    let q = app.db
      .selectFrom('delegations as d')
      .innerJoin('brands as b', 'b.id', 'd.brand_id')
      .select(['b.host as brand_key', 'd.status', 'd.client_account_id as client'])
      .where('d.partner_account_id', '=', actor.accountId);
    if (actor.scope !== null) q = q.where('b.host', 'in', actor.scope.length ? actor.scope : ['']);
    const rows = await q.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').execute();
    return { delegations: rows as never };
  },
});
