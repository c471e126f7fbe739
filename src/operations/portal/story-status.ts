import { z } from 'zod';
import {
  CLOSE_REASONS,
  closeStory as close,
  mayTeachDetection,
  reopenStory as reopen,
  suggestedExclusion,
} from '../../domain/story-closing.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, EventUri, Ok, StoryStatus } from '../schemas.js';

const StoryRef = { brand: BrandHost, event_uri: EventUri };

/**
 * Closes a story by hand, with why. "Not about us" can teach the brand's detection a
 * phrase to ignore from now on (the brand's own owners and admins).
 */
export const closeStory = defineOperation({
  id: 'close_story',
  summary: 'Close a story by hand',
  input: z.strictObject({
    ...StoryRef,
    reason: z.enum(CLOSE_REASONS),
    exclude_phrase: z.string().max(100).optional(),
  }),
  output: z.object({ ok: Ok, status: StoryStatus, excluded: z.string().nullable() }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    const r = await close(
      app,
      { actor, access, eventUri: input.event_uri },
      {
        reason: input.reason,
        ...(input.exclude_phrase !== undefined && { excludePhrase: input.exclude_phrase }),
      },
    );
    return { ok: true, ...r };
  },
});

export const reopenStory = defineOperation({
  id: 'reopen_story',
  summary: 'Reopen a closed story',
  input: z.strictObject(StoryRef),
  output: z.object({ ok: Ok, status: StoryStatus }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    return { ok: true, ...(await reopen(app, { actor, access, eventUri: input.event_uri })) };
  },
});

/** What the close form offers: whether detection can be taught here, and a phrase to start from. */
export const closingOptions = defineOperation({
  id: 'story_closing_options',
  summary: 'What closing this story can do',
  input: z.strictObject(StoryRef),
  output: z.object({ may_exclude: z.boolean(), suggested_phrase: z.string().nullable() }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    const act = {
      actor,
      access: await brandFor(app, actor, input.brand),
      eventUri: input.event_uri,
    };
    if (!mayTeachDetection(act)) return { may_exclude: false, suggested_phrase: null };
    return { may_exclude: true, suggested_phrase: await suggestedExclusion(app, act) };
  },
});
