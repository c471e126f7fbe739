import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import { invalid, notFound } from '../errors.js';

export interface StoryPage {
  rows: { event_uri: string; title: string; severity: string; detected_at: string }[];
  nextCursor: string | null;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Cursors are opaque to clients: the (detected_at, id) of the last row, base64url-encoded. */
const encodeCursor = (detectedAt: string, id: string) =>
  Buffer.from(`${detectedAt}|${id}`).toString('base64url');

function decodeCursor(cursor: string): [string, string] {
  const [d, id, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!d || !id || extra !== undefined || !TIMESTAMP.test(d) || !/^[a-z0-9_]+$/.test(id)) {
    throw invalid('cursor: is not a cursor this API returned');
  }
  return [d, id];
}

interface PageRow {
  id: string;
  event_uri: string;
  title: string;
  severity: string;
  detected_at: string;
}

const firstPage = prepared<{ brandId: string; take: number }, PageRow>((db, p) =>
  db
    .selectFrom('stories')
    .select(['id', 'event_uri', 'title', 'severity', 'detected_at'])
    .where('brand_id', '=', p('brandId'))
    .orderBy('detected_at', 'desc')
    .orderBy('id', 'desc')
    .limit(p('take')),
);

const pageAfterCursor = prepared<
  { brandId: string; take: number; before: string; beforeId: string },
  PageRow
>((db, p) =>
  db
    .selectFrom('stories')
    .select(['id', 'event_uri', 'title', 'severity', 'detected_at'])
    .where('brand_id', '=', p('brandId'))
    .where((eb) =>
      eb.or([
        eb('detected_at', '<', p('before')),
        eb.and([eb('detected_at', '=', p('before')), eb('id', '<', p('beforeId'))]),
      ]),
    )
    .orderBy('detected_at', 'desc')
    .orderBy('id', 'desc')
    .limit(p('take')),
);

/** Newest first, keyset-paginated so deep pages cost the same as the first. */
export async function listStoryPage(
  db: Db,
  brandId: string,
  limit: number,
  cursor?: string,
): Promise<StoryPage> {
  const take = limit + 1;
  let found: PageRow[];
  if (cursor) {
    const [before, beforeId] = decodeCursor(cursor);
    found = await pageAfterCursor.all(db, { brandId, take, before, beforeId });
  } else {
    found = await firstPage.all(db, { brandId, take });
  }
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

/** The working state of some stories of a brand, by event_uri (the portal's list columns). */
export async function storyWorkingState(db: Db, brandId: string, eventUris: string[]) {
  if (eventUris.length === 0) return new Map();
  const rows = await db
    .selectFrom('stories as s')
    .innerJoin('advisories as a', (j) =>
      j.onRef('a.story_id', '=', 's.id').on('a.kind', '=', sql.lit('live')),
    )
    .leftJoin('users as u', 'u.id', 's.assignee_user_id')
    .select([
      's.event_uri',
      's.status',
      's.last_activity_at',
      'a.assessment',
      's.spread',
      'u.email as assignee',
      's.unlocked_at',
    ])
    .where('s.brand_id', '=', brandId)
    .where('s.event_uri', 'in', eventUris)
    .execute();
  return new Map(
    rows.map(({ event_uri, unlocked_at, ...state }) => [
      event_uri,
      { ...state, unlocked: unlocked_at !== null },
    ]),
  );
}
