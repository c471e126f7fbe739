import { createRequire } from 'node:module';

/**
 * Whether two articles report the same event (docs/pipeline.md, "Clustering"). Two
 * newsrooms rarely share sentences, but they share the facts: names, numbers, the
 * product, the place. So an article is reduced to the counts of its content words (the
 * title's counting three times; function words of its language and the brand's own
 * words left out, since every article of the brand has them), and two
 * articles are the same event when the cosine of those counts is high enough and they
 * were published within a few days of each other.
 */

/** Days apart two articles of one event may be published. */
export const EVENT_WINDOW_DAYS = 3;
/**
 * Cosine similarity from which two articles are one event. On the hand-labelled corpus,
 * articles of one event score 0.39 and more, articles of different events of one brand
 * 0.17 and less: the bar sits between the two.
 */
export const SAME_EVENT_SIMILARITY = 0.28;
/** Words kept per article: the most frequent, which carry the event. */
const TERMS = 100;

const stopwords = createRequire(import.meta.url)('stopwords-iso') as Record<string, string[]>;
/**
 * Function words, which say nothing about the event: those of the article's language,
 * plus English, which news in every language quotes; for an article whose language is
 * unknown, those of the languages we see most.
 */
const STOPWORDS_BY_LANGUAGE = new Map<string, ReadonlySet<string>>();
const UNKNOWN_LANGUAGE = new Set([
  ...(stopwords.en ?? []),
  ...(stopwords.fr ?? []),
  ...(stopwords.de ?? []),
]);
export function stopwordsFor(language: string | null | undefined): ReadonlySet<string> {
  const own = language ? stopwords[language] : undefined;
  if (!language || !own) return UNKNOWN_LANGUAGE;
  let set = STOPWORDS_BY_LANGUAGE.get(language);
  if (!set) {
    set = new Set([...(stopwords.en ?? []), ...own]);
    STOPWORDS_BY_LANGUAGE.set(language, set);
  }
  return set;
}

const WORD = /[\p{L}\p{N}]+/gu;

export type Terms = ReadonlyMap<string, number>;

/** The article's content words with their counts (the title's count three times). */
export function terms(
  article: { title: string; text: string; language?: string | null },
  ignore: ReadonlySet<string> = new Set(),
): Terms {
  const counts = new Map<string, number>();
  const STOPWORDS = stopwordsFor(article.language);
  const count = (text: string, weight: number) => {
    for (const m of text.matchAll(WORD)) {
      const w = m[0].toLowerCase();
      if (w.length < 3 || STOPWORDS.has(w) || ignore.has(w)) continue;
      counts.set(w, (counts.get(w) ?? 0) + weight);
    }
  };
  count(article.title, 3);
  count(article.text, 1);
  if (counts.size <= TERMS) return counts;
  return new Map([...counts].sort((a, b) => b[1] - a[1]).slice(0, TERMS));
}

/** The lower-cased words of a brand's terms, left out of its articles' terms. */
export function brandWords(brand: {
  host: string;
  name: string;
  aliases?: readonly string[];
}): Set<string> {
  const words = new Set<string>();
  for (const t of [brand.host, brand.name, ...(brand.aliases ?? [])]) {
    for (const m of t.matchAll(WORD)) words.add(m[0].toLowerCase());
  }
  return words;
}

/** Cosine similarity of two term counts: 1 for the same words in the same proportions. */
export function similarity(a: Terms, b: Terms): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [w, x] of a) {
    na += x * x;
    const y = b.get(w);
    if (y) dot += x * y;
  }
  for (const y of b.values()) nb += y * y;
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

export const daysApart = (a: string, b: string) =>
  Math.abs(Date.parse(a.slice(0, 10)) - Date.parse(b.slice(0, 10))) / 86_400_000;

export interface Candidate<S> {
  story: S;
  published_at: string;
  terms: Terms;
}

/**
 * The story whose article is most similar to this one, among those published within the
 * window, if any is similar enough; undefined means the article starts a new story.
 */
export function findEvent<S>(
  article: { published_at: string; terms: Terms },
  candidates: Iterable<Candidate<S>>,
): { story: S; similarity: number } | undefined {
  let best: { story: S; similarity: number } | undefined;
  for (const c of candidates) {
    if (daysApart(c.published_at, article.published_at) > EVENT_WINDOW_DAYS) continue;
    const s = similarity(article.terms, c.terms);
    if (s >= SAME_EVENT_SIMILARITY && (!best || s > best.similarity)) {
      best = { story: c.story, similarity: s };
    }
  }
  return best;
}
