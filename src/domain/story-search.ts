import { sql } from 'kysely';
import { type Db, onPostgres } from '../db/database.js';
import { foldText } from './story-documents.js';

/** Sentiment as the search filters it: its mean over the scored sources, in three bands. */
export const SENTIMENT_BANDS = ['negative', 'neutral', 'positive'] as const;
export type SentimentBand = (typeof SENTIMENT_BANDS)[number];

/** Where the bands meet: a mean below −0.2 is negative, above 0.2 positive. */
const BAND_EDGE = 0.2;

/** At most this many words are looked for; the rest of a long query is dropped. */
const MAX_TERMS = 12;

/**
 * The words of a search, folded as documents are (each matches a word or its start).
 * Single characters are dropped: as a prefix, one letter matches most of the index.
 */
export const searchTerms = (text: string) =>
  foldText(text)
    .split(' ')
    .filter((t) => t.length > 1)
    .slice(0, MAX_TERMS);

/**
 * The stories whose document matches the filter's words, language and sentiment, as a
 * subquery of story ids; undefined when the filter asks nothing of documents. The same
 * folded terms go to FTS5 on SQLite and to PostgreSQL's full-text search, so both find the
 * same stories (test/integration/story-search.test.ts runs on both).
 */
export function matchingDocuments(
  db: Db,
  brandIds: string[],
  filter: { text?: string; language?: string; sentiment?: SentimentBand },
) {
  const terms = filter.text ? searchTerms(filter.text) : [];
  if (terms.length === 0 && !filter.language && !filter.sentiment) return undefined;
  // The reader's brands here too: the subquery holds their documents only, not every
  // tenant's matches.
  let q = db
    .selectFrom('story_documents as d')
    .select('d.story_id')
    .where('d.brand_id', 'in', brandIds);
  if (terms.length > 0) {
    if (onPostgres(db)) {
      const query = terms.map((t) => `${t}:*`).join(' & ');
      // OFFSET 0 keeps PostgreSQL from folding the match into the join: planned on rows
      // not yet analysed (a tenant's first stories), it ran the full-text match once per
      // story, every document each time (0.8 s for 200 stories); fenced, it runs once.
      q = q
        .where(sql<boolean>`to_tsvector('simple', d.body) @@ to_tsquery('simple', ${query})`)
        .modifyEnd(sql`offset 0`);
    } else {
      const query = terms.map((t) => `"${t}"*`).join(' ');
      q = q.where(
        'd.doc_id',
        'in',
        sql<number>`(select rowid from story_fts where story_fts match ${query})`,
      );
    }
  }
  if (filter.language) q = q.where('d.language', '=', filter.language);
  if (filter.sentiment === 'negative') q = q.where('d.sentiment', '<', -BAND_EDGE);
  if (filter.sentiment === 'positive') q = q.where('d.sentiment', '>', BAND_EDGE);
  if (filter.sentiment === 'neutral') {
    q = q.where('d.sentiment', '>=', -BAND_EDGE).where('d.sentiment', '<=', BAND_EDGE);
  }
  return q;
}
