import { z } from 'zod';
import { deleteBrandNote as removeNote } from '../../domain/brand-notes.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, EventUri, Ok } from '../schemas.js';

export const deleteBrandNote = defineOperation({
  id: 'delete_brand_note',
  summary: 'Delete the Brand Note of a story',
  description:
    'Removes the official note of a story; deleted tells whether there was one. Same gate as publishing.',
  input: z.object({ brand: BrandHost, event_uri: EventUri }),
  output: z.object({
    ok: Ok,
    brand: z.string(),
    event_uri: z.string(),
    deleted: z.boolean().describe('false when the story had no note'),
  }),
  access: {},
  rest: { method: 'DELETE', path: '/v1/brand-note' },
  portal: true,
  hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    const deleted = await removeNote(app, { actor, access, eventUri: input.event_uri });
    return { ok: true, brand: access.brand.host, event_uri: input.event_uri, deleted };
  },
});
