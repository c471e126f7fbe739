import { z } from 'zod';
import { dropDelegation as drop } from '../../domain/delegations.js';
import { notFound } from '../../errors.js';
import { actorLabel, brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, Ok } from '../schemas.js';

export const dropDelegation = defineOperation({
  id: 'drop_delegation',
  summary: 'Drop the delegation of a client brand',
  description:
    "Ends this account's active delegation of a client brand (terminal): every operation on the brand answers 404 from then on, and webhook deliveries for it stop. client_account says whether the client account, left with no active delegation, was handed back to the client with a 7-day reclaim trial (trial_ends_at); the shares this account created on the brand stop.",
  input: z.object({ brand: BrandHost.describe('Client brand host') }),
  output: z.object({
    ok: Ok,
    brand: z.string(),
    status: z.literal('dropped'),
    client_account: z
      .enum(['handed_back', 'retained'])
      .describe(
        'handed_back: the client account has no active delegation left and returns to the client with a 7-day reclaim trial; retained: another delegation still manages it',
      ),
    trial_ends_at: z
      .string()
      .nullable()
      .describe(
        'when handed_back, the end of the reclaim trial (ISO 8601, UTC): until then the client works with the partner plan on its own brands, then with its own plan; null when retained',
      ),
  }),
  access: { minRole: 'admin' },
  rest: { method: 'DELETE', path: '/v1/delegations' },
  portal: true,
  hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    // The account's own brand has no delegation to drop.
    if (access.relation !== 'delegated') throw notFound();
    const r = await drop(app, actor.accountId, access.brand.host, actorLabel(actor));
    return {
      ok: true,
      brand: access.brand.host,
      status: 'dropped' as const,
      client_account: r.clientAccount,
      trial_ends_at: r.trialEndsAt,
    };
  },
});
