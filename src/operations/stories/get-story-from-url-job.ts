import { z } from 'zod';
import { readStoryFromUrlJob } from '../../domain/story-from-url.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, Ok } from '../schemas.js';

export const getStoryFromUrlJob = defineOperation({
  id: 'get_story_from_url_job',
  summary: 'Read the outcome of a story-from-URL job',
  description:
    "The state of a create_story_from_url job: queued, running, done (with the story's event_uri) or failed (with a reason such as brand not mentioned).",
  input: z.object({
    brand: BrandHost,
    job: z.string().min(1, 'is required').max(100).describe('The job from create_story_from_url'),
  }),
  output: z.object({
    ok: Ok,
    brand: z.string(),
    job: z.string(),
    status: z.enum(['queued', 'running', 'done', 'failed']),
    event_uri: z.string().optional().describe('when done: the story'),
    reason: z.string().optional().describe('when failed: why'),
  }),
  access: {},
  rest: { method: 'GET', path: '/v1/stories/from-url' },
  portal: true,
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    const outcome = await readStoryFromUrlJob(app, access, input.job);
    return { ok: true, brand: access.brand.host, job: input.job, ...outcome };
  },
});
