import { z } from 'zod';
import { readableBrands } from '../../domain/brands.js';
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
    "The account's own monitored brands and the client brands actively delegated to it. Only the brands the caller may read are listed (a brand-scoped key: its brands).",
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
    return { brands: await readableBrands(app, actor.accountId, actor.scope) };
  },
});
