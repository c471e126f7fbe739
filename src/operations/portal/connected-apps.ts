import { z } from 'zod';
import {
  listConnectedApps as list,
  revokeConnectedApp as revoke,
} from '../../domain/connected-apps.js';
import { type Actor, signedInPerson } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { Ok, Timestamp } from '../schemas.js';

/** Connected apps are a person's own: an API key has none and manages none. */
const person = (actor: Actor) =>
  signedInPerson(actor, 'connected apps belong to a signed-in person');

export const listConnectedApps = defineOperation({
  id: 'list_connected_apps',
  summary: 'The OAuth applications you allowed to act as you in this team',
  input: z.strictObject({}),
  output: z.object({
    apps: z.array(
      z.object({
        client_id: z.string(),
        name: z.string(),
        redirect_host: z.string().describe('where it sends the browser back to after sign-in'),
        connected_at: Timestamp,
        last_used_at: Timestamp.nullable().describe('its last call to /mcp, to the minute'),
      }),
    ),
  }),
  access: {},
  portal: true,
  async handler({ app, actor }) {
    const me = person(actor);
    return { apps: await list(app, me.accountId, me.userId) };
  },
});

export const revokeConnectedApp = defineOperation({
  id: 'revoke_connected_app',
  summary: "Take an application's access back: its tokens stop working at once",
  input: z.strictObject({ client_id: z.string().min(1).max(200) }),
  output: z.object({ ok: Ok }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    const me = person(actor);
    await revoke(app, me.accountId, me.userId, input.client_id);
    return { ok: true };
  },
});
