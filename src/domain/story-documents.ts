import type { Insertable } from 'kysely';
import type { AppContext } from '../context.js';
import { type Db, withTransaction } from '../db/database.js';
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
  return {
    body: foldText(words.join('\n')).slice(0, BODY_CHARS),
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
 * after a source joins it, its advisory is replaced, or it is unlocked.
 */
export async function refreshStoryDocument(db: Db, storyId: string, at: string): Promise<void> {
  const story = await db
    .selectFrom('stories as s')
    .innerJoin('advisories as a', (j) =>
      j.onRef('a.story_id', '=', 's.id').on('a.kind', '=', 'live'),
    )
    .select(['s.brand_id', 's.title', 's.unlocked_at', 'a.executive_summary'])
    .where('s.id', '=', storyId)
    .executeTakeFirst();
  if (!story) return;
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
  await db
    .insertInto('story_documents')
    .values({ story_id: storyId, brand_id: story.brand_id, ...doc, updated_at: at })
    .onConflict((oc) => oc.column('story_id').doUpdateSet({ ...doc, updated_at: at }))
    .execute();
}

const BACKFILL_BATCH = 200;

/**
 * Writes the documents of up to a batch of stories that have none (those stored before
 * migration 0018), after `after` in id order; answers the last id seen, or null when no
 * story is left. A rerun of a batch (its job's process died) finds the documents written
 * and skips them.
 */
export async function backfillStoryDocuments(
  db: Db,
  after: string,
  at: string,
): Promise<string | null> {
  const rows = await db
    .selectFrom('stories as s')
    .leftJoin('story_documents as d', 'd.story_id', 's.id')
    .select(['s.id', 'd.story_id as documented'])
    .where('s.id', '>', after)
    .orderBy('s.id')
    .limit(BACKFILL_BATCH)
    .execute();
  for (const r of rows) if (!r.documented) await refreshStoryDocument(db, r.id, at);
  return rows.length === BACKFILL_BATCH ? rows.at(-1)!.id : null;
}

/** The `search.backfill` job: one batch, then the next batch's job, in one transaction. */
export async function backfillSearchJob(app: AppContext, payload: { after?: string }) {
  const at = app.clock.now().toISOString();
  return withTransaction(app.db, async (trx) => {
    const last = await backfillStoryDocuments(trx, payload.after ?? '', at);
    if (last) await enqueue(trx, SEARCH_BACKFILL, { after: last }, { now: at });
    return { next: last };
  });
}
