import { z } from 'zod';
import { unlockAdvisory } from '../../domain/unlock.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, EventUri, Ok, StoryArgs } from '../schemas.js';

export const TriggerResult = z.object({
  ok: Ok,
  counted: z.boolean().describe("whether one of the brand's included monthly units was used"),
  billed_eur: z.number().describe('amount billed by this call, in EUR'),
  note: z.string().describe('what happened, in words'),
  checkout_url: z
    .string()
    .optional()
    .describe('present when a one-off purchase must be completed first (no subscription)'),
});

export const triggerAdvisory = defineOperation({
  id: 'trigger_advisory',
  summary: "Unlock a story's full advisory",
  description:
    "Unlocks the full advisory. Uses the brand's included monthly unit first; beyond it an API key meters 15 EUR on the payer's subscription (the partner, for a delegated brand). A signed-in person (an MCP user session) is never charged: past the included unit, as without a subscription, nothing is unlocked or charged and checkout_url starts an explicit one-off purchase. An unlocked advisory answers ok at once and charges nothing. If metering fails, nothing is unlocked (402).",
  input: z.strictObject({ brand: BrandHost, event_uri: EventUri }),
  output: TriggerResult,
  access: {},
  rest: { method: 'POST', path: '/v1/advisory' },
  userTool: {
    name: 'unlock_advisory',
    title: 'Unlock an advisory',
    description:
      "Unlocks the full advisory with one of the brand's included monthly units. When none is left, nothing is unlocked or charged and checkout_url links to a page where you can buy one (15 EUR) yourself. Never charges.",
    args: z.strictObject(StoryArgs),
    toInput: (a) => ({ brand: a.brand_id, event_uri: a.event_uri }),
  },
  portal: true,
  hints: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    // People are never charged by a call (spec 4.3): past the included units they buy one
    // at checkout. Keys meter on the payer's subscription.
    return unlockAdvisory(app, {
      actor,
      access,
      eventUri: input.event_uri,
      allowMetering: actor.kind === 'key',
    });
  },
});
