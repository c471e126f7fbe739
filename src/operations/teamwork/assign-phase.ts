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
  StoryStatus,
  TeammateEmail,
} from '../schemas.js';

export const assignPhase = defineOperation({
  id: 'assign_phase',
  method: 'POST',
  path: '/v1/story/phase-assign',
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
  hints: { readOnly: false, destructive: false, openWorld: true },
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    const r = await assign(
      app,
      actor,
      access,
      input.event_uri,
      input.phase,
      input.assignee,
      input.invite ?? false,
    );
    return {
      ok: true,
      brand: access.brand.host,
      event_uri: input.event_uri,
      phase: input.phase,
      ...r,
    };
  },
});
