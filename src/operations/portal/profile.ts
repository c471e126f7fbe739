import { z } from 'zod';
import { changePassword as change, getProfile, saveProfile } from '../../domain/profile.js';
import { type Actor, signedInPerson } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { Ok } from '../schemas.js';

/** A profile is a person's own: an API key has none. */
const person = (actor: Actor) => signedInPerson(actor, 'a profile belongs to a signed-in person');

const Profile = z.object({
  email: z.string(),
  name: z.string().nullable(),
  time_zone: z.string().nullable().describe("IANA zone times are shown in; null: the browser's"),
});

export const readProfile = defineOperation({
  id: 'get_profile',
  summary: 'Your name, email and time zone',
  input: z.strictObject({}),
  output: Profile,
  access: {},
  portal: true,
  handler: ({ app, actor }) => getProfile(app, person(actor).userId),
});

export const updateProfile = defineOperation({
  id: 'save_profile',
  summary: 'Change your name and time zone',
  input: z.strictObject({ name: z.string().max(200), time_zone: z.string().max(100) }),
  output: z.object({ ok: Ok, name: z.string().nullable(), time_zone: z.string().nullable() }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    const saved = await saveProfile(app, person(actor).userId, {
      name: input.name,
      timeZone: input.time_zone,
    });
    return { ok: true, ...saved };
  },
});

/**
 * Changes your password, knowing the current one; every session of yours ends (the
 * portal signs the browser that changed it in again, with a new session).
 */
export const changePassword = defineOperation({
  id: 'change_password',
  summary: 'Change your password',
  input: z.strictObject({
    current_password: z.string().max(1024),
    new_password: z.string().max(1024),
  }),
  output: z.object({ ok: Ok }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    const me = person(actor);
    await change(app, {
      userId: me.userId,
      accountId: me.accountId,
      current: input.current_password,
      next: input.new_password,
    });
    return { ok: true };
  },
});
