import { z } from 'zod';
import { setPhaseDue as setDue } from '../../domain/assignments.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, EventUri, Ok } from '../schemas.js';

/** Sets or clears the day a phase of the response plan is due (the brand's own team). */
export const setPhaseDue = defineOperation({
  id: 'set_phase_due',
  summary: 'Set or clear the day a phase is due',
  input: z.strictObject({
    brand: BrandHost,
    event_uri: EventUri,
    phase: z.coerce.number().int().min(1).max(50),
    due: z.string().max(20).describe('YYYY-MM-DD, or empty to clear'),
  }),
  output: z.object({ ok: Ok, phase: z.number().int(), due: z.string().nullable() }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    const r = await setDue(app, {
      actor,
      access,
      eventUri: input.event_uri,
      phaseNumber: input.phase,
      due: input.due.trim() || null,
    });
    return { ok: true, ...r };
  },
});
