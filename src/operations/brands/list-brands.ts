import { z } from 'zod';
import { defineOperation } from '../operation.js';

const BrandRow = z.object({
  brand: z.string().describe('brand host'),
  name: z.string(),
  verified: z.boolean(),
  delegated: z.boolean().describe('true for a client brand acting under an active delegation'),
  client: z.string().nullable().describe('client account key of a delegated brand, else null'),
});

export const listBrands = defineOperation({
  id: 'list_brands',
  method: 'GET',
  path: '/v1/brands',
  summary: 'List the brands this key can read',
  description:
    "The account's own monitored brands and the client brands actively delegated to it. Brand-scoped keys see only their scope.",
  input: z.object({}),
  output: z.object({ brands: z.array(BrandRow) }),
  access: {},
  hints: { readOnly: true, destructive: false, openWorld: false },
  async handler({ app, actor }) {
    const own = await app.db
      .selectFrom('brands')
      .select(['host as brand', 'name', 'verified'])
      .where('account_id', '=', actor.accountId)
      .execute();
    const delegated = await app.db
      .selectFrom('delegations as d')
      .innerJoin('brands as b', 'b.id', 'd.brand_id')
      .select(['b.host as brand', 'b.name', 'b.verified', 'd.client_account_id as client'])
      .where('d.partner_account_id', '=', actor.accountId)
      .where('d.status', '=', 'active')
      .execute();
    const rows = [
      ...own.map((b) => ({ ...b, verified: b.verified === 1, delegated: false, client: null })),
      ...delegated.map((b) => ({ ...b, verified: b.verified === 1, delegated: true })),
    ]
      .filter((b) => actor.scope === null || actor.scope.includes(b.brand))
      .sort((a, b) => a.brand.localeCompare(b.brand));
    return { brands: rows };
  },
});
