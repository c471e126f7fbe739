import { type Expression, type SqlBool, sql } from 'kysely';
import type { Db } from '../db/database.js';
import { BrandMatcher } from '../pipeline/brand-matcher.js';
import { sentenceAround } from '../pipeline/sentences.js';
import { brandTermsOf } from './brands.js';
import { decodeCursor, encodeCursor } from './stories.js';
import type { SentimentBand } from './story-search.js';

/**
 * Every mention of a brand, or of all a reader's brands, as it was found (docs/sources.md,
 * "Mentions"; issue 43): each
 * source of its stories with where it came from (type, publisher, language, date, link),
 * how it speaks of the brand and the sentence that names it. Free on every plan: the
 * paywall stays on the advisory.
 */
export interface MentionRow {
  /** The brand it names (its host). */
  brand: string;
  url: string;
  title: string;
  publisher: string;
  /** Who wrote a post read as it is (its account, its reviewer); null for a page. */
  author: string | null;
  type: string;
  language: string | null;
  published_at: string;
  found_at: string;
  sentiment: number | null;
  /** The first sentence naming the brand (the title when only it does); null if none. */
  sentence: string | null;
  /** The story it is a source of; null for a post kept with too little reach for one. */
  event_uri: string | null;
}

export interface MentionFilter {
  type?: string;
  language?: string;
  sentiment?: SentimentBand;
}

/** Where sentiment bands meet, for one source's score (as the story search's bands). */
const BAND_EDGE = 0.2;

/** A page of the brands' mentions, newest found first, and the cursor after it (or null). */
export async function listMentionPage(
  db: Db,
  brandIds: readonly string[],
  filter: MentionFilter,
  limit: number,
  cursor?: string,
): Promise<{ rows: MentionRow[]; nextCursor: string | null }> {
  if (brandIds.length === 0) return { rows: [], nextCursor: null };
  const after = cursor ? decodeCursor(cursor) : null;
  // Stories' sources, and posts kept with too little reach to make a story alone
  // (quiet-posts.ts): each side filtered and paged alike, then merged.
  let sources = db
    .selectFrom('articles as a')
    .innerJoin('stories as s', 's.id', 'a.story_id')
    .select(['a.id', 'a.url', 'a.title', 'a.publisher', 'a.type', 'a.language'])
    .select(['a.published_at', 'a.created_at', 'a.sentiment', 's.event_uri', 's.brand_id'])
    .select('a.author')
    .where('s.brand_id', 'in', brandIds);
  let quiet = db
    .selectFrom('quiet_mentions as a')
    .select(['a.id', 'a.url', 'a.title', 'a.publisher', 'a.type', 'a.language'])
    .select(['a.published_at', 'a.created_at', 'a.sentiment', 'a.brand_id', 'a.text'])
    .select('a.author')
    .where('a.brand_id', 'in', brandIds);
  // The same filters and page on both sides (`a` is either's alias).
  const conditions: Expression<SqlBool>[] = [];
  if (filter.type) conditions.push(sql<SqlBool>`a.type = ${filter.type}`);
  if (filter.language) conditions.push(sql<SqlBool>`a.language = ${filter.language}`);
  if (filter.sentiment === 'positive') conditions.push(sql<SqlBool>`a.sentiment > ${BAND_EDGE}`);
  if (filter.sentiment === 'negative') conditions.push(sql<SqlBool>`a.sentiment < ${-BAND_EDGE}`);
  if (filter.sentiment === 'neutral') {
    conditions.push(sql<SqlBool>`a.sentiment >= ${-BAND_EDGE} and a.sentiment <= ${BAND_EDGE}`);
  }
  if (after) {
    const [before, beforeId] = after;
    conditions.push(
      sql<SqlBool>`(a.created_at < ${before} or (a.created_at = ${before} and a.id < ${beforeId}))`,
    );
  }
  for (const c of conditions) {
    sources = sources.where(c);
    quiet = quiet.where(c);
  }
  const [fromSources, fromQuiet] = await Promise.all([
    sources
      .orderBy('a.created_at', 'desc')
      .orderBy('a.id', 'desc')
      .limit(limit + 1)
      .execute(),
    quiet
      .orderBy('a.created_at', 'desc')
      .orderBy('a.id', 'desc')
      .limit(limit + 1)
      .execute(),
  ]);
  const found = [
    ...fromSources.map((a) => ({ ...a, text: undefined as string | undefined })),
    ...fromQuiet.map((a) => ({ ...a, event_uri: null })),
  ]
    .sort((x, y) =>
      x.created_at === y.created_at
        ? y.id.localeCompare(x.id)
        : y.created_at.localeCompare(x.created_at),
    )
    .slice(0, limit + 1);
  const page = found.slice(0, limit);
  if (page.length === 0) return { rows: [], nextCursor: null };
  // The texts of this page's sources only (a story's sources may be long), and each brand
  // as the matcher knows it (its aliases and policy too) for the sentence naming it.
  const sourceIds = page.filter((a) => a.text === undefined).map((a) => a.id);
  const texts = new Map(
    sourceIds.length === 0
      ? []
      : (
          await db
            .selectFrom('articles')
            .select(['id', 'text'])
            .where('id', 'in', sourceIds)
            .execute()
        ).map((r) => [r.id, r.text]),
  );
  for (const a of page) if (a.text !== undefined) texts.set(a.id, a.text);
  const brands = new Map(
    (
      await db
        .selectFrom('brands')
        .select(['id', 'host', 'name', 'aliases', 'match_policy'])
        .where('id', 'in', [...new Set(page.map((a) => a.brand_id))])
        .execute()
    ).map((b) => [
      b.id,
      {
        host: b.host,
        matcher: new BrandMatcher([{ brand: true as const, terms: brandTermsOf(b) }]),
      },
    ]),
  );
  const rows = page.map((a) => {
    const brand = brands.get(a.brand_id)!;
    return {
      brand: brand.host,
      url: a.url,
      title: a.title,
      publisher: a.publisher,
      author: a.author,
      type: a.type,
      language: a.language,
      published_at: a.published_at,
      found_at: a.created_at,
      sentiment: a.sentiment,
      sentence: namingSentence(brand.matcher, a.title, texts.get(a.id) ?? ''),
      event_uri: a.event_uri,
    };
  });
  const last = page.at(-1)!;
  return {
    rows,
    nextCursor: found.length > limit ? encodeCursor(last.created_at, last.id) : null,
  };
}

/** The first sentence of the text naming the brand, else the title if it does. */
function namingSentence(matcher: BrandMatcher<true>, title: string, text: string): string | null {
  const at = matcher.occurrences(text)[0];
  if (at) return sentenceAround(text, at.start, at.end);
  return matcher.occurrences(title).length > 0 ? title : null;
}
