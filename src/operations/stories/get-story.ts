import { z } from 'zod';
import { loadStoryDetail } from '../../domain/story-view.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, EventUri } from '../schemas.js';
import { StoryDetail } from '../shapes.js';

export const getStory = defineOperation({
  id: 'get_story',
  method: 'GET',
  path: '/v1/story',
  summary: 'Read one story with its advisory',
  description:
    'The story and its advisory. A locked advisory shows only the free teaser (locked: true); unlock it with trigger_advisory.',
  input: z.object({ brand: BrandHost, event_uri: EventUri }),
  output: z.object({ brand: z.string(), story: StoryDetail }),
  access: {},
  hints: { readOnly: true, destructive: false, openWorld: false },
  async handler({ app, actor }, input) {
    const { brand } = await brandFor(app, actor, input.brand);
    return { brand: brand.host, story: await loadStoryDetail(app.db, brand.id, input.event_uri) };
  },
});
