import type { Insertable } from 'kysely';
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import { decode } from '../db/json-columns.js';
import type { DB } from '../db/schema.js';
import { SEARCH_BACKFILL } from '../jobs/kinds.js';
import { enqueue } from '../jobs/queue.js';
import { meanSentiment } from '../pipeline/sentiment.js';

/** What a story's document is made of: what a reader of its list row and teaser may see. */
interface DocumentParts {
  title: string;
  summary: string[];
  /** The story's sources; their words only once the story is unlocked (the paywall's). */
  sources: { title: string; publisher: string; url: string; text: string }[];
  unlocked: boolean;
  languages: (string | null)[];
  sentiments: (number | null)[];
}

/** A document's body is capped: PostgreSQL refuses a tsvector over 1 MB. */
const BODY_CHARS = 200_000;

/**
 * Text as the search index holds it: accents dropped, lowercase, letters and digits in
 * runs separated by single spaces. Folded here rather than by the database so SQLite's
 * FTS5 and PostgreSQL's `simple` parser see the same words (migration 0018).
 */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The most frequent known language, the first source's on a tie; null when none is known. */
function mainLanguage(languages: (string | null)[]): string | null {
  const counts = new Map<string, number>();
  for (const l of languages) if (l) counts.set(l, (counts.get(l) ?? 0) + 1);
  let best: string | null = null;
  for (const [l, n] of counts) if (best === null || n > counts.get(best)!) best = l;
  return best;
}

const hostOf = (url: string) => URL.parse(url)?.hostname ?? '';

function documentOf(parts: DocumentParts) {
  const words = [parts.title, ...parts.summary];
  if (parts.unlocked) {
    for (const s of parts.sources) words.push(s.title, s.publisher, hostOf(s.url), s.text);
  }
  // Folded a part at a time up to the cap: a story with many long sources folds only
  // what its document keeps.
  let body = '';
  for (const w of words) {
    if (body.length >= BODY_CHARS) break;
    const folded = foldText(w);
    if (folded) body = body ? `${body} ${folded}` : folded;
  }
  return {
    body: body.slice(0, BODY_CHARS),
    language: mainLanguage(parts.languages),
    sentiment: meanSentiment(parts.sentiments),
  };
}

/** The document of a story being created (importStory and the benchmark's bulk seed). */
export function newStoryDocument(p: {
  storyId: string;
  brandId: string;
  title: string;
  summary: { text: string }[];
  language: string | null;
  sentiment: number | null;
  at: string;
}): Insertable<DB['story_documents']> {
  return {
    story_id: p.storyId,
    brand_id: p.brandId,
    ...documentOf({
      title: p.title,
      summary: p.summary.map((i) => i.text),
      sources: [],
      unlocked: false,
      languages: [p.language],
      sentiments: [p.sentiment],
    }),
    updated_at: p.at,
  };
}

/**
 * Writes a story's document again from what it holds now, in the caller's transaction:
 * after a source joins it, its advisory is replaced, or it is unlocked. With `ifMissing`
 * (the backfill, which holds no lock on the story) a document written meanwhile by one of
 * those is left as it is.
 */
export async function refreshStoryDocument(
  db: Db,
  storyId: string,
  at: string,
  opts: { ifMissing?: boolean } = {},
): Promise<boolean> {
  const story = await db
    .selectFrom('stories as s')
    .innerJoin('advisories as a', (j) =>
      j.onRef('a.story_id', '=', 's.id').on('a.kind', '=', 'live'),
    )
    .select(['s.brand_id', 's.title', 's.unlocked_at', 'a.executive_summary'])
    .where('s.id', '=', storyId)
    .executeTakeFirst();
  if (!story) return false;
  const sources = await db
    .selectFrom('articles')
    .select(['title', 'publisher', 'url', 'text', 'language', 'sentiment', 'source_key'])
    .where('story_id', '=', storyId)
    .execute();
  sources.sort((a, b) => Number(a.source_key.slice(1)) - Number(b.source_key.slice(1)));
  const doc = documentOf({
    title: story.title,
    summary: decode('advisories.executive_summary', story.executive_summary).map((i) => i.text),
    sources,
    unlocked: story.unlocked_at !== null,
    languages: sources.map((s) => s.language),
    sentiments: sources.map((s) => s.sentiment),
  });
  const r = await db
    .insertInto('story_documents')
    .values({ story_id: storyId, brand_id: story.brand_id, ...doc, updated_at: at })
    .onConflict((oc) =>
      opts.ifMissing
        ? oc.column('story_id').doNothing()
        : oc.column('story_id').doUpdateSet({ ...doc, updated_at: at }),
    )
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
}

const BACKFILL_BATCH = 200;
/** After a pass that wrote documents, another pass this much later. */
const BACKFILL_AGAIN_MS = 10 * 60_000;

/**
 * The `search.backfill` job (queued by migration 0018): documents for up to a batch of
 * stories that have none, after `after` in id order, each written on its own (SQLite's
 * writers wait for one story, not a batch); then the next batch's job. A pass that wrote
 * any is followed by another from the start ten minutes later, until a pass finds none
 * missing: stories the previous release stored during a rolling upgrade get theirs too.
 * A rerun of a batch (its process died) finds the documents written and skips them.
 */
export async function backfillSearchJob(
  app: AppContext,
  payload: { after?: string; wrote?: number },
) {
  const at = app.clock.now().toISOString();
  const rows = await app.db
    .selectFrom('stories as s')
    .leftJoin('story_documents as d', 'd.story_id', 's.id')
    .select(['s.id', 'd.story_id as documented'])
    .where('s.id', '>', payload.after ?? '')
    .orderBy('s.id')
    .limit(BACKFILL_BATCH)
    .execute();
  let wrote = payload.wrote ?? 0;
  for (const r of rows) {
    if (!r.documented && (await refreshStoryDocument(app.db, r.id, at, { ifMissing: true })))
      wrote++;
  }
  const last = rows.at(-1);
  if (rows.length === BACKFILL_BATCH && last) {
    await enqueue(app.db, SEARCH_BACKFILL, { after: last.id, wrote }, { now: at });
  } else if (wrote > 0) {
    const again = new Date(app.clock.now().getTime() + BACKFILL_AGAIN_MS).toISOString();
    await enqueue(app.db, SEARCH_BACKFILL, { wrote: 0 }, { now: at, runAt: again });
  }
  return { wrote, next: last?.id ?? null };
}
