import { z } from 'zod';
import { findStoryId } from '../../domain/stories.js';
import { brandFor } from '../../policy.js';
import { BrandHost, EventUri } from '../schemas.js';
import { definePortalOperation } from './define.js';

const LIMIT = 100;

/**
 * The audit trail as the portal shows it, newest first: the account's own entries, or
 * one story's (a brand the person may read, own or delegated).
 */
export const listActivity = definePortalOperation({
  access: {},
  input: z.strictObject({ brand: BrandHost.optional(), event_uri: EventUri.optional() }),
  async handler({ app, actor }, input) {
    let q = app.db
      .selectFrom('audit_log as l')
      .leftJoin('stories as s', 's.id', 'l.story_id')
      .leftJoin('brands as b', 'b.id', 'l.brand_id')
      .select([
        'l.created_at',
        'l.actor',
        'l.action',
        'b.host',
        's.event_uri',
        's.title',
        'l.details',
      ]);
    if (input.brand && input.event_uri) {
      const { brand } = await brandFor(app, actor, input.brand);
      q = q.where('l.story_id', '=', await findStoryId(app.db, brand.id, input.event_uri));
    } else {
      q = q.where('l.account_id', '=', actor.accountId);
    }
    const rows = await q
      .orderBy('l.created_at', 'desc')
      .orderBy('l.id', 'desc')
      .limit(LIMIT)
      .execute();
    return { entries: rows.map((r) => ({ ...r, details: JSON.parse(r.details) as unknown })) };
  },
});
