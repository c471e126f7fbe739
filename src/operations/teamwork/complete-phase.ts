import { z } from 'zod';
import { completePhase as complete } from '../../domain/assignments.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import {
  BrandHost,
  EventUri,
  Ok,
  PhaseComment,
  PhaseNumber,
  StoryStatus,
  Timestamp,
} from '../schemas.js';

export const completePhase = defineOperation({
  id: 'complete_phase',
  method: 'POST',
  path: '/v1/story/phase-done',
  summary: 'Mark a phase done',
  description:
    'Marks a phase of the response plan done, recording the acting key and the time; the last open phase closes the story. Requires an unlocked advisory. On a delegated brand the key holder is the operator.',
  input: z.strictObject({
    brand: BrandHost,
    event_uri: EventUri,
    phase: PhaseNumber,
    comment: PhaseComment,
  }),
  output: z.object({
    ok: Ok,
    brand: z.string(),
    event_uri: z.string(),
    phase: z.number().int(),
    done_by: z.string(),
    done_at: Timestamp,
    already_done: z
      .boolean()
      .describe('true when the phase was done before this call (nothing changed)'),
    status: StoryStatus.describe("the story's status afterwards"),
  }),
  access: {},
  hints: { readOnly: false, destructive: false, openWorld: false },
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    const r = await complete(app, actor, access, input.event_uri, input.phase, input.comment);
    return {
      ok: true,
      brand: access.brand.host,
      event_uri: input.event_uri,
      phase: input.phase,
      ...r,
    };
  },
});
