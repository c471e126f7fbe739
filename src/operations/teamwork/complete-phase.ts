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
  StoryArgs,
  StoryStatus,
  Timestamp,
} from '../schemas.js';

export const completePhase = defineOperation({
  id: 'complete_phase',
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
  rest: { method: 'POST', path: '/v1/story/phase-done' },
  userTool: {
    name: 'validate_action',
    title: 'Mark a response action done',
    description:
      'Marks your own assigned phase done; only its assignee may. The optional comment goes to the audit trail. The last open phase closes the story.',
    args: z.strictObject({ ...StoryArgs, phase: PhaseNumber, comment: PhaseComment }),
    toInput: (a) => ({
      brand: a.brand_id,
      event_uri: a.event_uri,
      phase: a.phase,
      comment: a.comment,
    }),
  },
  portal: true,
  hints: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    // A person marks done only the phase assigned to them (spec 4.3); a key, any phase.
    const onlyUserId = actor.kind === 'user' ? actor.userId : undefined;
    const r = await complete(app, {
      actor,
      access,
      eventUri: input.event_uri,
      phaseNumber: input.phase,
      comment: input.comment,
      onlyUserId,
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
