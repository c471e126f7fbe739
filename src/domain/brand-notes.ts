import { type AppContext, inTransaction } from '../context.js';
import { actorLabel, requireNotePublisher, type StoryAct } from '../policy.js';
import { writeAudit } from './audit.js';
import { findStoryId } from './stories.js';

/** Publishes (or replaces) the one official note of a story; never deletes. */
export async function publishBrandNote(
  app: AppContext,
  { actor, access, eventUri, text }: StoryAct & { text: string },
): Promise<void> {
  requireNotePublisher(access);
  const storyId = await findStoryId(app.db, access.brand.id, eventUri);
  const now = app.clock.now().toISOString();
  await inTransaction(app, async (app) => {
    const trx = app.db;
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
  { actor, access, eventUri }: StoryAct,
): Promise<boolean> {
  requireNotePublisher(access);
  const storyId = await findStoryId(app.db, access.brand.id, eventUri);
  const now = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
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
