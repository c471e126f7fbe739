import type { AppContext } from '../context.js';
import { withTransaction } from '../db/database.js';
import { type Actor, actorLabel, type BrandAccess, requireNotePublisher } from '../policy.js';
import { writeAudit } from './audit.js';
import { findStoryId } from './stories.js';

/** Publishes (or replaces) the one official note of a story; never deletes. */
export async function publishBrandNote(
  app: AppContext,
  actor: Actor,
  access: BrandAccess,
  eventUri: string,
  text: string,
): Promise<void> {
  requireNotePublisher(access);
  const storyId = await findStoryId(app.db, access.brand.id, eventUri);
  const now = app.clock.now().toISOString();
  await withTransaction(app.db, async (trx) => {
    await trx
      .insertInto('brand_notes')
      .values({ story_id: storyId, text, author: actorLabel(actor), published_at: now })
      .onConflict((oc) =>
        oc.column('story_id').doUpdateSet({ text, author: actorLabel(actor), published_at: now }),
      )
      .execute();
    await trx
      .updateTable('stories')
      .set({ last_activity_at: now })
      .where('id', '=', storyId)
      .execute();
    await writeAudit(trx, {
      accountId: actor.accountId,
      brandId: access.brand.id,
      storyId,
      actor: actorLabel(actor),
      action: 'brand_note.published',
      details: { length: [...text].length },
      at: now,
    });
  });
}

/** Removes the note; answers whether there was one. */
export async function deleteBrandNote(
  app: AppContext,
  actor: Actor,
  access: BrandAccess,
  eventUri: string,
): Promise<boolean> {
  requireNotePublisher(access);
  const storyId = await findStoryId(app.db, access.brand.id, eventUri);
  const now = app.clock.now().toISOString();
  return withTransaction(app.db, async (trx) => {
    const gone = await trx
      .deleteFrom('brand_notes')
      .where('story_id', '=', storyId)
      .executeTakeFirst();
    if (Number(gone.numDeletedRows) === 0) return false;
    await writeAudit(trx, {
      accountId: actor.accountId,
      brandId: access.brand.id,
      storyId,
      actor: actorLabel(actor),
      action: 'brand_note.deleted',
      at: now,
    });
    return true;
  });
}
