import { z } from 'zod';
import { unassignPhase as unassign } from '../../domain/assignments.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, EventUri, Ok, PhaseNumberInQuery, StoryStatus } from '../schemas.js';

export const unassignPhase = defineOperation({
  id: 'unassign_phase',
  summary: "Clear a phase's assignee",
  description: "Clears the phase's assignee; a done phase stays done. Own brands only.",
  input: z.object({
    brand: BrandHost,
    event_uri: EventUri,
    phase: PhaseNumberInQuery,
  }),
  output: z.object({
    ok: Ok,
    brand: z.string(),
    event_uri: z.string(),
    phase: z.number().int(),
    unassigned: z.boolean().describe('false when the phase had no assignee'),
    status: StoryStatus,
  }),
  access: {},
  rest: { method: 'DELETE', path: '/v1/story/phase-assign' },
  portal: true,
  hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    const r = await unassign(app, {
      actor,
      access,
      eventUri: input.event_uri,
      phaseNumber: input.phase,
    });
    return {
      ok: true,
      brand: access.brand.host,
      event_uri: input.event_uri,
      phase: input.phase,
      ...r,
    };
  },
});
