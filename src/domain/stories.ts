import type { Db } from '../db/database.js';
import { invalid, notFound } from '../errors.js';

export interface StoryPage {
  rows: { event_uri: string; title: string; severity: string; detected_at: string }[];
  nextCursor: string | null;
}

/** Cursors are opaque to clients: the (detected_at, id) of the last row, base64url-encoded. */
const encodeCursor = (detectedAt: string, id: string) =>
  Buffer.from(`${detectedAt}|${id}`).toString('base64url');

function decodeCursor(cursor: string): [string, string] {
  const [d, id, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!d || !id || extra !== undefined || Number.isNaN(Date.parse(d))) {
    throw invalid('cursor: is not a cursor this API returned');
  }
  return [d, id];
}

/** Newest first, keyset-paginated so deep pages cost the same as the first. */
export async function listStoryPage(
  db: Db,
  brandId: string,
  limit: number,
  cursor?: string,
): Promise<StoryPage> {
  let q = db
    .selectFrom('stories')
    .select(['id', 'event_uri', 'title', 'severity', 'detected_at'])
    .where('brand_id', '=', brandId);
  if (cursor) {
    const [d, id] = decodeCursor(cursor);
    q = q.where((eb) =>
      eb.or([eb('detected_at', '<', d), eb.and([eb('detected_at', '=', d), eb('id', '<', id)])]),
    );
  }
  const found = await q
    .orderBy('detected_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  const page = found.slice(0, limit);
  const last = page[page.length - 1];
  return {
    rows: page.map(({ id: _id, ...row }) => row),
    nextCursor: found.length > limit && last ? encodeCursor(last.detected_at, last.id) : null,
  };
}

export async function findStoryId(db: Db, brandId: string, eventUri: string): Promise<string> {
  const row = await db
    .selectFrom('stories')
    .select('id')
    .where('brand_id', '=', brandId)
    .where('event_uri', '=', eventUri)
    .executeTakeFirst();
  if (!row) throw notFound();
  return row.id;
}
