import { z } from 'zod';
import { loadStoryDetail } from '../../domain/story-view.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, EventUri, StoryArgs } from '../schemas.js';
import { Advisory, StoryDetail } from '../shapes.js';

export const getStory = defineOperation({
  id: 'get_story',
  summary: 'Read one story with its advisory',
  description:
    'The story and its advisory. A locked advisory shows only the free teaser (locked: true); unlock it with trigger_advisory.',
  input: z.object({ brand: BrandHost, event_uri: EventUri }),
  output: z.object({ brand: z.string(), story: StoryDetail }),
  access: {},
  rest: { method: 'GET', path: '/v1/story' },
  userTool: {
    name: 'get_story',
    title: 'Read a story',
    description:
      'The story with its advisory: assessment, urgency, executive summary with citations, sources and the response plan. A locked advisory shows only the free teaser (assessment, severity, urgency, executive summary) with unlocked=false; unlock_advisory unlocks it.',
    args: z.strictObject(StoryArgs),
    toInput: (a) => ({ brand: a.brand_id, event_uri: a.event_uri }),
    output: z.object({
      brand_id: z.string(),
      story: StoryDetail.extend({
        unlocked: z.boolean().describe('false when only the teaser is shown'),
        advisory: z.union([
          Advisory,
          Advisory.pick({ assessment: true, urgency: true, executive_summary: true }),
        ]),
      }),
    }),
    present({ brand, story }) {
      const { assessment, urgency, executive_summary, locked } = story.advisory;
      return {
        brand_id: brand,
        story: {
          ...story,
          unlocked: !locked,
          advisory: locked ? { assessment, urgency, executive_summary } : story.advisory,
        },
      };
    },
  },
  portal: true,
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  async handler({ app, actor }, input) {
    const { brand } = await brandFor(app, actor, input.brand);
    return { brand: brand.host, story: await loadStoryDetail(app.db, brand.id, input.event_uri) };
  },
});
