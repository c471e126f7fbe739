import { z } from 'zod';
import { reenableShare } from '../../domain/share-suspension.js';
import {
  addShareGuest,
  removeShareGuest,
  storyShare as shareOf,
  stopShare,
} from '../../domain/shares.js';
import { findStoryId } from '../../domain/stories.js';
import { actorLabel, brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, EventUri, Ok, TeammateEmail, Timestamp } from '../schemas.js';

const StoryRef = { brand: BrandHost, event_uri: EventUri };

/** The story's share, if it has one, with its guests: what the story page shows. */
export const storyShare = defineOperation({
  id: 'get_story_share',
  summary: "A story's share and its guests",
  input: z.strictObject(StoryRef),
  output: z.object({
    share: z
      .object({
        url: z.string(),
        access: z.enum(['public', 'guests']),
        mode: z.enum(['compact', 'briefing', 'full']),
        listed: z.boolean(),
        guests: z.array(z.string()),
        suspended_at: Timestamp.nullable(),
        can_reenable: z.boolean(),
      })
      .nullable(),
  }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    const { brand, relation } = await brandFor(app, actor, input.brand);
    const share = await shareOf(app, await findStoryId(app.db, brand.id, input.event_uri));
    if (!share) return { share: null };
    // Re-enabling is the brand's own account's decision, never a partner's.
    return {
      share: { ...share, can_reenable: share.suspended_at !== null && relation === 'own' },
    };
  },
});

/**
 * Re-enables a share that stopped when the partner that created it left (the brand's own
 * account only): it becomes the client's and serves again at the same URL.
 */
export const reenableStoryShare = defineOperation({
  id: 'reenable_story_share',
  summary: 'Re-enable a share stopped with its partner',
  input: z.strictObject(StoryRef),
  output: z.object({ ok: Ok }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    await reenableShare(app, access, input.event_uri, actorLabel(actor));
    return { ok: true };
  },
});

/** Invites a guest to the story's share (they sign in by an emailed link on its page). */
export const addGuest = defineOperation({
  id: 'add_share_guest',
  summary: "Invite a guest to a story's share",
  input: z.strictObject({ ...StoryRef, email: TeammateEmail }),
  output: z.object({ ok: Ok }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    await addShareGuest(app, {
      access,
      eventUri: input.event_uri,
      email: input.email,
      actor: actorLabel(actor),
      byAccount: actor.accountId,
    });
    return { ok: true };
  },
});

export const removeGuest = defineOperation({
  id: 'remove_share_guest',
  summary: "Remove a guest from a story's share",
  input: z.strictObject({ ...StoryRef, email: TeammateEmail }),
  output: z.object({ ok: Ok }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    await removeShareGuest(app, {
      access,
      eventUri: input.event_uri,
      email: input.email,
      actor: actorLabel(actor),
    });
    return { ok: true };
  },
});

/** Stops sharing the story: its URL and its guests' links answer "not found". */
export const stopSharing = defineOperation({
  id: 'stop_sharing',
  summary: 'Stop sharing a story',
  input: z.strictObject(StoryRef),
  output: z.object({ ok: Ok }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    await stopShare(app, {
      access,
      eventUri: input.event_uri,
      actor: actorLabel(actor),
      byAccount: actor.accountId,
    });
    return { ok: true };
  },
});
