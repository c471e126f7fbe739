import { z } from 'zod';
import { billingOverview as overview } from '../../domain/billing-overview.js';
import { defineOperation } from '../operation.js';
import { Timestamp } from '../schemas.js';

/** What the account pays for (owners and admins). */
export const billingOverview = defineOperation({
  id: 'billing_overview',
  summary: 'Plan, subscription, included units left and the billing ledger',
  input: z.strictObject({}),
  output: z.object({
    plan: z.enum(['starter', 'pro', 'partner', 'agency']),
    unit_price_cents: z.number().int(),
    units: z.array(
      z.object({
        brand: z.string(),
        name: z.string(),
        relation: z.enum(['own', 'client']),
        included: z.number().int().describe("included units a month of the brand's plan"),
        left: z.number().int().describe('included units left this month'),
        used_included: z.number().int().describe('included units this account used this month'),
        used_paid: z.number().int().describe('units this account paid for this month'),
        cents: z.number().int().describe('what they cost this month'),
      }),
    ),
    subscription: z
      .object({
        provider: z.string(),
        status: z.string(),
        client_brands: z.number().int(),
        created_at: Timestamp,
      })
      .nullable(),
    ledger: z.array(
      z.object({
        created_at: Timestamp,
        kind: z.string(),
        amount_cents: z.number().int(),
        currency: z.string(),
        period: z.string(),
        host: z.string().nullable().describe('null: a brand deleted since'),
        title: z.string().nullable(),
      }),
    ),
  }),
  access: { minRole: 'admin' },
  portal: true,
  handler: ({ app, actor }) => overview(app, actor.accountId, actor.plan),
});
