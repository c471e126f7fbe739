import { z } from 'zod';
import { requestStoryFromUrl } from '../../domain/story-from-url.js';
import { actorLabel, brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, Ok } from '../schemas.js';

export const createStoryFromUrl = defineOperation({
  id: 'create_story_from_url',
  summary: 'Create a story from an article URL',
  description:
    'Reads the page and runs detection and advisory generation in the background (202 with a job; read the outcome back with get_story_from_url_job); the story then appears in the story list. If the article is already in a story of this brand, the answer (200) points at it with status exists and nothing is regenerated. Counts as a mention, never billed.',
  input: z.strictObject({
    brand: BrandHost,
    url: z
      .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
      .max(2000, 'must be at most 2000 characters')
      .describe('The article, on a public host'),
  }),
  output: z.union([
    z.object({
      ok: Ok,
      status: z.literal('queued'),
      job: z.string().describe('read the outcome with get_story_from_url_job'),
    }),
    z.object({
      ok: Ok,
      status: z.literal('exists'),
      event_uri: z.string().describe('the story that already holds the article'),
    }),
  ]),
  access: {},
  rest: {
    method: 'POST',
    path: '/v1/stories/from-url',
    statusOf: (body) => (body.status === 'queued' ? 202 : 200),
  },
  portal: true,
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    return requestStoryFromUrl(app, access, input.url, actorLabel(actor));
  },
});
