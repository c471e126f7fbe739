import { z } from 'zod';
import { assignPhase as assign } from '../../domain/assignments.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import {
  BrandHost,
  EventUri,
  Invite,
  Ok,
  PhaseNumber,
  StoryArgs,
  StoryStatus,
  TeammateEmail,
} from '../schemas.js';

export const assignPhase = defineOperation({
  id: 'assign_phase',
  summary: 'Assign a phase of the response plan',
  description:
    'Assigns one phase to a teammate and emails them a signed link to it. Own brands only; requires an unlocked advisory; the seat cap applies. An unknown email is refused (404) unless invite=true.',
  input: z.strictObject({
    brand: BrandHost,
    event_uri: EventUri,
    phase: PhaseNumber,
    assignee: TeammateEmail,
    invite: Invite,
  }),
  output: z.object({
    ok: Ok,
    brand: z.string(),
    event_uri: z.string(),
    phase: z.number().int(),
    assignee: z.string(),
    invited: z.boolean(),
    status: StoryStatus.describe("the story's status afterwards"),
  }),
  access: {},
  rest: { method: 'POST', path: '/v1/story/phase-assign' },
  userTool: {
    name: 'assign_action',
    title: 'Assign a response action',
    description:
      'Assigns a phase of the response plan to a teammate by email and emails them the action with its context. An unknown email is invited into your team (the seat cap applies). Own brands only; needs an unlocked advisory.',
    args: z.strictObject({ ...StoryArgs, phase: PhaseNumber, assignee: TeammateEmail }),
    toInput: (a) => ({
      brand: a.brand_id,
      event_uri: a.event_uri,
      phase: a.phase,
      assignee: a.assignee,
      invite: true,
    }),
  },
  portal: true,
  // Assigning again emails the assignee again: not idempotent.
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    const r = await assign(app, {
      actor,
      access,
      eventUri: input.event_uri,
      phaseNumber: input.phase,
      email: input.assignee,
      invite: input.invite ?? false,
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
