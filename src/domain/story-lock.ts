import type { Db } from '../db/database.js';
import { notFound } from '../errors.js';

/**
 * Every transaction that changes a story starts here, with a write to the story row
 * (its last activity). On PostgreSQL that locks the row until commit, so the changes to
 * one story (unlock, assignment, phases, proposals, checkout) run one after another and
 * each sees the others' results; on SQLite a write as the first statement takes the
 * database's write lock before anything is read, so no transaction works from a stale
 * snapshot. Answers the story's id; an unknown story is `not found`.
 */
export async function lockStory(
  trx: Db,
  story: { brandId: string; eventUri: string } | { id: string },
  at: string,
): Promise<string> {
  let q = trx.updateTable('stories').set({ last_activity_at: at });
  q =
    'id' in story
      ? q.where('id', '=', story.id)
      : q.where('brand_id', '=', story.brandId).where('event_uri', '=', story.eventUri);
  const row = await q.returning('id').executeTakeFirst();
  if (!row) throw notFound();
  return row.id;
}
