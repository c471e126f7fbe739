import { z } from 'zod';
import { assignStory as assign } from '../../domain/assignments.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, EventUri, Invite, Ok, StoryStatus, TeammateEmail } from '../schemas.js';

export const assignStory = defineOperation({
  id: 'assign_story',
  summary: 'Assign a story to a teammate',
  description:
    'Assigns the story to a teammate by email and emails them. Own brands only (403 on a delegated brand). An unknown email is refused (404) unless invite=true, which invites them into the team (the plan seat cap applies); an email of another account is refused (409).',
  input: z.strictObject({
    brand: BrandHost,
    event_uri: EventUri,
    assignee: TeammateEmail,
    invite: Invite,
  }),
  output: z.object({
    ok: Ok,
    brand: z.string(),
    event_uri: z.string(),
    assignee: z.string(),
    invited: z.boolean().describe('true when the assignee was invited into the team by this call'),
    status: StoryStatus,
  }),
  access: {},
  rest: { method: 'POST', path: '/v1/story/assign' },
  portal: true,
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    const r = await assign(app, {
      actor,
      access,
      eventUri: input.event_uri,
      email: input.assignee,
      invite: input.invite ?? false,
    });
    return { ok: true, brand: access.brand.host, event_uri: input.event_uri, ...r };
  },
});
