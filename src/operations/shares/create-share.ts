import { z } from 'zod';
import { upsertShare } from '../../domain/shares.js';
import { actorLabel, brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, EventUri, Ok, StoryArgs } from '../schemas.js';

export const ShareAccess = z
  .enum(['public', 'guests'], 'must be public or guests')
  .optional()
  .describe(
    'public (anonymous; the default for a new share) or guests (invited guests who sign in by email link); omitted on a retune, the share keeps its access',
  );
export const ShareMode = z
  .enum(['compact', 'briefing', 'full'], 'must be compact, briefing or full')
  .optional()
  .describe(
    'compact (headline and assessment), briefing (plus the cited summary and sources) or full (plus the response plan; guests only). A new share defaults to briefing when public and full when guests; omitted on a retune, the share keeps its mode',
  );
export const ShareListed = z
  .boolean('must be true or false')
  .optional()
  .describe(
    'public shares only: list the page in the public index (false for a new share; omitted on a retune, the share keeps it)',
  );

export const ShareAnswer = z.object({
  ok: Ok,
  brand: z.string(),
  event_uri: z.string(),
  url: z.string().describe('the share page'),
  access: z.enum(['public', 'guests']),
  mode: z.enum(['compact', 'briefing', 'full']),
  listed: z.boolean(),
});

export const createShare = defineOperation({
  id: 'create_share',
  summary: 'Create or retune the share of a story',
  description:
    'Creates the one share of a story, or changes its settings (the URL stays). Public access is anonymous and allowed up to mode briefing; guests access shows the full advisory to invited guests. A retune changes only the settings it names. A public share with mode full, or listed on a guests share, is refused (400), never corrected. A share a partner created stops when its delegation ends; it is then refused here (409) until the brand owner re-enables it in the app.',
  input: z.strictObject({
    brand: BrandHost,
    event_uri: EventUri,
    access: ShareAccess,
    mode: ShareMode,
    listed: ShareListed,
  }),
  output: ShareAnswer,
  access: {},
  rest: { method: 'POST', path: '/v1/shares' },
  userTool: {
    name: 'create_share',
    title: 'Share a story',
    description:
      'Creates or retunes the share link of a story. Public access is anonymous and allowed up to mode briefing; guests access shows the full advisory to invited guests (managed in the portal). A public share with mode full, or listed on a guests share, is refused.',
    args: z.strictObject({
      ...StoryArgs,
      access: ShareAccess,
      listed: ShareListed,
      mode: ShareMode,
    }),
    toInput: (a) => ({
      brand: a.brand_id,
      event_uri: a.event_uri,
      access: a.access,
      mode: a.mode,
      listed: a.listed,
    }),
  },
  portal: true,
  hints: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    const share = await upsertShare(app, {
      access,
      eventUri: input.event_uri,
      asked: { access: input.access, mode: input.mode, listed: input.listed },
      actor: actorLabel(actor),
      byAccount: actor.accountId,
    });
    return { ok: true, brand: access.brand.host, event_uri: input.event_uri, ...share };
  },
});
