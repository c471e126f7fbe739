import type { Db } from '../db/database.js';
import { lockRow } from '../db/locks.js';
import { notFound } from '../errors.js';

/**
 * Every transaction that changes a story starts here: the story's row is locked (lockRow),
 * so the changes to one story (unlock, assignment, phases, proposals, checkout) run one
 * after another and each sees the others' results, and its last activity is now. Answers
 * the story's id; an unknown story is `not found`.
 */
export async function lockStory(
  trx: Db,
  story: { brandId: string; eventUri: string } | { id: string },
  at: string,
): Promise<string> {
  const id = await lockRow(
    trx,
    'stories',
    'id' in story ? { id: story.id } : { brand_id: story.brandId, event_uri: story.eventUri },
  );
  if (!id) throw notFound();
  await trx.updateTable('stories').set({ last_activity_at: at }).where('id', '=', id).execute();
  return id;
}
