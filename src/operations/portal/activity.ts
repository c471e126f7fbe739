import { z } from 'zod';
import { listActivity as activity } from '../../domain/audit.js';
import { findStoryId } from '../../domain/stories.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, EventUri, Timestamp } from '../schemas.js';

const LIMIT = 100;

/**
 * The audit trail as the portal shows it, newest first: the account's own entries, or
 * one story's (a brand the person may read, own or delegated).
 */
export const listActivity = defineOperation({
  id: 'list_activity',
  summary: "The account's or a story's audit trail",
  input: z.strictObject({ brand: BrandHost.optional(), event_uri: EventUri.optional() }),
  output: z.object({
    entries: z.array(
      z.object({
        created_at: Timestamp,
        actor: z.string(),
        actor_name: z.string().describe('who, as a person reads it: a name, or what kind of actor'),
        action: z.string(),
        host: z.string().nullable(),
        event_uri: z.string().nullable(),
        title: z.string().nullable(),
        details: z.record(z.string(), z.unknown()),
      }),
    ),
  }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    if (input.brand && input.event_uri) {
      const { brand } = await brandFor(app, actor, input.brand);
      const storyId = await findStoryId(app.db, brand.id, input.event_uri);
      return { entries: await activity(app, { storyId }, LIMIT) };
    }
    return { entries: await activity(app, { accountId: actor.accountId }, LIMIT) };
  },
});
