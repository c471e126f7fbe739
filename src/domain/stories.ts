import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import type { Severity, StoryStatus } from '../db/schema.js';
import { invalid, notFound } from '../errors.js';
import { matchingDocuments, type SentimentBand } from './story-search.js';

export interface StoryPage {
  rows: { event_uri: string; title: string; severity: Severity; detected_at: string }[];
  nextCursor: string | null;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Cursors are opaque to clients: the (detected_at, id) of the last row, base64url-encoded. */
export const encodeCursor = (detectedAt: string, id: string) =>
  Buffer.from(`${detectedAt}|${id}`).toString('base64url');

export function decodeCursor(cursor: string): [string, string] {
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
  severity: Severity;
  detected_at: string;
}

const firstPage = prepared<{ brandId: string; take: number }, PageRow>(
  'story list, first page',
  (db, p) =>
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
>('story list, page after a cursor', (db, p) =>
  db
    .selectFrom('stories')
    .select(['id', 'event_uri', 'title', 'severity', 'detected_at'])
    .where('brand_id', '=', p('brandId'))
    // A row comparison, which both databases take as a range of the index: the page reads
    // its rows only, however deep the cursor (an OR of the two columns read every newer row).
    .where((eb) => eb(eb.refTuple('detected_at', 'id'), '<', eb.tuple(p('before'), p('beforeId'))))
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
  const { page, nextCursor } = pageOf(found, limit);
  return { rows: page.map(({ id: _id, ...row }) => row), nextCursor };
}

/** A page out of `limit + 1` rows read, newest first, and the cursor after it (or null). */
function pageOf<R extends { detected_at: string; id: string }>(found: R[], limit: number) {
  const page = found.slice(0, limit);
  const last = page.at(-1);
  return {
    page,
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

/** What a story list may be narrowed to (the portal's list, search_stories). */
export interface StoryFilter {
  status?: StoryStatus[];
  severity?: Severity[];
  /** Words the story's document holds, each as a word or the start of one. */
  text?: string;
  /** Detected on or after this day (UTC, YYYY-MM-DD). */
  from?: string;
  /** Detected on or before this day (UTC, YYYY-MM-DD). */
  to?: string;
  topic?: string;
  sentiment?: SentimentBand;
  language?: string;
  /** A user id, or null for stories nobody is assigned. */
  assignee?: string | null;
}

/**
 * The newest stories of several brands with their working state (the MCP user session's
 * list_stories, search_stories, the portal's list): one statement a page,
 * keyset-paginated like listStoryPage, with the cursor of the next page or null on the
 * last. Newest first also when searching: the order is the same on both databases, and
 * a page's cursor holds whatever is stored meanwhile.
 */
export async function listRecentStories(
  db: Db,
  brandIds: string[],
  filter: StoryFilter,
  limit: number,
  cursor?: string,
) {
  if (brandIds.length === 0) return { rows: [], nextCursor: null };
  let q = db
    .selectFrom('stories as s')
    .innerJoin('brands as b', 'b.id', 's.brand_id')
    .innerJoin('advisories as a', (j) =>
      j.onRef('a.story_id', '=', 's.id').on('a.kind', '=', sql.lit('live')),
    )
    .leftJoin('users as u', 'u.id', 's.assignee_user_id')
    .select([
      'b.host as brand_id',
      's.event_uri',
      's.title',
      's.severity',
      's.detected_at',
      's.status',
      's.last_activity_at',
      'a.assessment',
      's.spread',
      'u.email as assignee',
      's.unlocked_at',
      's.id',
    ])
    .where('s.brand_id', 'in', brandIds);
  if (filter.status?.length) q = q.where('s.status', 'in', filter.status);
  if (filter.severity?.length) q = q.where('s.severity', 'in', filter.severity);
  if (filter.from) q = q.where('s.detected_at', '>=', `${filter.from}T00:00:00.000Z`);
  if (filter.to) q = q.where('s.detected_at', '<=', `${filter.to}T23:59:59.999Z`);
  // Topics are tags from the taxonomy (checked by the caller): no LIKE wildcard in them.
  if (filter.topic) q = q.where('s.topics', 'like', `%"${filter.topic}"%`);
  if (filter.assignee === null) q = q.where('s.assignee_user_id', 'is', null);
  else if (filter.assignee) q = q.where('s.assignee_user_id', '=', filter.assignee);
  const documents = matchingDocuments(db, brandIds, filter);
  if (documents) q = q.where('s.id', 'in', documents);
  if (cursor) {
    const [before, beforeId] = decodeCursor(cursor);
    q = q.where((eb) => eb(eb.refTuple('s.detected_at', 's.id'), '<', eb.tuple(before, beforeId)));
  }
  const found = await q
    .orderBy('s.detected_at', 'desc')
    .orderBy('s.id', 'desc')
    .limit(limit + 1)
    .execute();
  const { page, nextCursor } = pageOf(found, limit);
  return {
    rows: page.map(({ unlocked_at, id: _id, ...row }) => ({
      ...row,
      unlocked: unlocked_at !== null,
    })),
    nextCursor,
  };
}

/**
 * Ids of the brands an account reads: its own and those actively delegated to it; of
 * those, a brand-scoped key's hosts only.
 */
export async function readableBrandIds(
  db: Db,
  accountId: string,
  scope: readonly string[] | null = null,
): Promise<string[]> {
  const rows = await db
    .selectFrom('brands')
    .select(['id', 'host'])
    .where('account_id', '=', accountId)
    .union(
      db
        .selectFrom('delegations as d')
        .innerJoin('brands as b', 'b.id', 'd.brand_id')
        .select(['b.id', 'b.host'])
        .where('d.partner_account_id', '=', accountId)
        .where('d.status', '=', 'active'),
    )
    .execute();
  return rows.filter((r) => scope === null || scope.includes(r.host)).map((r) => r.id);
}

/** The story of this brand that already holds an article at one of these URLs. */
export async function storyHolding(
  db: Db,
  brandId: string,
  urls: readonly string[],
): Promise<string | undefined> {
  return (await storyHoldingRow(db, brandId, urls))?.event_uri;
}

/**
 * The story of this brand holding an article at one of these URLs, its id and event_uri;
 * with `open`, only a story not closed (one a post linking it may join).
 */
export async function storyHoldingRow(
  db: Db,
  brandId: string,
  urls: readonly string[],
  { open = false }: { open?: boolean } = {},
): Promise<{ id: string; event_uri: string } | undefined> {
  let q = db
    .selectFrom('articles as a')
    .innerJoin('stories as s', 's.id', 'a.story_id')
    .select(['s.id', 's.event_uri'])
    .where('s.brand_id', '=', brandId)
    .where((eb) => eb.or([eb('a.url', 'in', urls), eb('a.canonical_url', 'in', urls)]));
  if (open) q = q.where('s.status', '!=', 'closed');
  return q.executeTakeFirst();
}

/** A story's articles as the advisory generator reads them: its sources, s1 first. */
export async function storySources(db: Db, storyId: string) {
  const rows = await db
    .selectFrom('articles')
    .select([
      'source_key',
      'url',
      'title',
      'publisher',
      'published_at',
      'text',
      'type',
      'language',
      'charset',
      'undated',
      'opinion',
    ])
    .where('story_id', '=', storyId)
    .execute();
  return rows
    .map(({ undated, opinion, ...r }) => ({
      ...r,
      ...(undated && { undated: true }),
      ...(opinion && { opinion: true }),
    }))
    .sort((a, b) => Number(a.source_key.slice(1)) - Number(b.source_key.slice(1)));
}
