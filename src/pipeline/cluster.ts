import { createRequire } from 'node:module';
import { wordSize } from './common-words.js';
import { boilerplateOf } from './mentions.js';

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
 * Cosine similarity from which two articles may be one event (eventSimilarity adds the
 * headlines). Measured on real coverage (bench/event-labels.json, docs/pipeline.md): lower
 * bars merge more unrelated pieces of one place and week, higher ones split real
 * coverage. On the hand-labelled corpus different events of a brand stay below 0.16.
 */
export const SAME_EVENT_SIMILARITY = 0.3;
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

/**
 * How much a word says about which event an article reports: the rarer it is in English
 * (common-words.ts), the more. "time" and "people" are in every story; "kettles",
 * "Fort Worth" and "bubonic" are in few.
 */
function rarity(word: string): number {
  const size = wordSize(word);
  if (size === undefined) return 1;
  return size <= 10 ? 0.3 : size <= 20 ? 0.5 : size <= 35 ? 0.7 : 0.85;
}

/**
 * The article's content words, each weighted (docs/pipeline.md, "Clustering"): its count,
 * the title's words counting three times, dampened (1 + ln count) so that one word
 * repeated ("facebook", "time") does not carry the article, times its rarity. Names and
 * figures are not weighted up: measured on real coverage, that merged more unrelated
 * articles (two on Hong Kong, two on Afghanistan) than it joined.
 */
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
  // The page's furniture and a press release's company description are the same in every
  // article of a publisher or a brand, whatever the event.
  for (const line of article.text.split('\n')) if (!boilerplateOf(line)) count(line, 1);
  const weighted = new Map<string, number>();
  for (const [w, n] of counts) {
    weighted.set(w, (1 + Math.log(n)) * rarity(w));
  }
  if (weighted.size <= TERMS) return weighted;
  return new Map([...weighted].sort((a, b) => b[1] - a[1]).slice(0, TERMS));
}

/** Articles a brand's recent coverage needs before its own word frequencies mean much. */
const POOL_FOR_IDF = 5;

/**
 * The terms of a pool of articles (the brand's recent ones and the newcomer) weighted by
 * rarity within it too (inverse document frequency, smoothed): a word in all of the
 * brand's recent coverage ("facebook" for Meta) tells no event from another. Fewer than
 * five articles are no corpus, and stay as they are.
 */
export function weighByPool(pool: readonly Terms[]): Terms[] {
  if (pool.length < POOL_FOR_IDF) return [...pool];
  const df = new Map<string, number>();
  for (const t of pool) for (const w of t.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const n = pool.length;
  return pool.map(
    (t) => new Map([...t].map(([w, x]) => [w, x * (Math.log((n + 1) / (df.get(w)! + 1)) + 1)])),
  );
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

/**
 * Two reports of one event name it in their headlines: two pieces on one place and week
 * ("Alibaba's Hong Kong listing", "Hong Kong's unrest") share their texts' words, not
 * their headlines'. Headlines meet from this similarity of their words (the brand's left
 * out); texts alike beyond ALIKE_WITHOUT_HEADLINE are one event whatever their headlines.
 */
export const HEADLINES_MEET = 0.1;
export const ALIKE_WITHOUT_HEADLINE = 0.4;

interface Compared {
  terms: Terms;
  /** The words of its headline (headlineTerms), when known. */
  headline?: Terms;
}

/** How alike two articles are when they report one event; null when they do not. */
export function eventSimilarity(a: Compared, b: Compared): number | null {
  const s = similarity(a.terms, b.terms);
  if (s < SAME_EVENT_SIMILARITY) return null;
  if (!a.headline || !b.headline || s >= ALIKE_WITHOUT_HEADLINE) return s;
  return similarity(a.headline, b.headline) >= HEADLINES_MEET ? s : null;
}

/**
 * The story whose article is most similar to this one, among those published within the
 * window, if any reports the same event (eventSimilarity); undefined means a new story.
 */
export function findEvent<S>(
  article: Compared & { published_at: string },
  candidates: Iterable<Compared & { story: S; published_at: string }>,
): { story: S; similarity: number } | undefined {
  let best: { story: S; similarity: number } | undefined;
  for (const c of candidates) {
    if (daysApart(c.published_at, article.published_at) > EVENT_WINDOW_DAYS) continue;
    const s = eventSimilarity(article, c);
    if (s !== null && (!best || s > best.similarity)) best = { story: c.story, similarity: s };
  }
  return best;
}

/** The words of a headline, as the clustering compares them. */
export const headlineTerms = (title: string, ignore: ReadonlySet<string> = new Set()) =>
  terms({ title, text: '' }, ignore);
