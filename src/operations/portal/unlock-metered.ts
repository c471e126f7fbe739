import { z } from 'zod';
import { unlockAdvisory } from '../../domain/unlock.js';
import { brandFor } from '../../policy.js';
import { TriggerResult } from '../advisory/trigger-advisory.js';
import { defineOperation } from '../operation.js';
import { BrandHost, EventUri } from '../schemas.js';

/**
 * Unlocks an advisory as `trigger_advisory` does, except that past the included units
 * it meters one unit on the payer's subscription, as an API key's call does. It exists
 * for the portal's button that names the price and is asked first (owners and admins):
 * a person's explicit purchase, never a side effect of a call (spec 4.3).
 */
export const unlockOnSubscription = defineOperation({
  id: 'unlock_advisory_on_subscription',
  summary: 'Unlock an advisory, metering it on the subscription past the included units',
  input: z.strictObject({ brand: BrandHost, event_uri: EventUri }),
  output: TriggerResult,
  access: { minRole: 'admin' },
  portal: true,
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    return unlockAdvisory(app, { actor, access, eventUri: input.event_uri, allowMetering: true });
  },
});
