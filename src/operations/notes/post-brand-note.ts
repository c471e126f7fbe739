import { z } from 'zod';
import { publishBrandNote } from '../../domain/brand-notes.js';
import { brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, EventUri, NoteText, Ok } from '../schemas.js';

export const postBrandNote = defineOperation({
  id: 'post_brand_note',
  summary: 'Publish the official Brand Note of a story',
  description:
    'Publishes or replaces the one official note on a story (plain text, 1 to 600 characters). Only for verified or delegated brands. Publishing never deletes: empty text is refused.',
  input: z.strictObject({ brand: BrandHost, event_uri: EventUri, text: NoteText }),
  output: z.object({ ok: Ok, brand: z.string(), event_uri: z.string() }),
  access: {},
  rest: { method: 'POST', path: '/v1/brand-note' },
  portal: true,
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    await publishBrandNote(app, { actor, access, eventUri: input.event_uri, text: input.text });
    return { ok: true, brand: access.brand.host, event_uri: input.event_uri };
  },
});
