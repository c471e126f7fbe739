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
  summary: 'List the brands this key can read',
  description:
    "The account's own monitored brands and the client brands actively delegated to it. Brand-scoped keys see only their scope.",
  input: z.object({}),
  output: z.object({ brands: z.array(BrandRow) }),
  access: {},
  rest: { method: 'GET', path: '/v1/brands' },
  userTool: {
    name: 'list_brands',
    title: 'List brands',
    description:
      'The brands (workspaces) your team monitors, and client brands delegated to it. Each brand_id is what the other tools take.',
    args: z.strictObject({}),
    toInput: () => ({}),
    output: z.object({
      brands: z.array(
        z.object({
          brand_id: z.string().describe('the brand host; pass it as brand_id'),
          name: z.string(),
          verified: z.boolean(),
          delegated: z.boolean().describe('a client brand acted on under a delegation'),
        }),
      ),
    }),
    present: ({ brands }) => ({
      brands: brands.map((b) => ({
        brand_id: b.brand,
        name: b.name,
        verified: b.verified,
        delegated: b.delegated,
      })),
    }),
  },
  portal: true,
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
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
