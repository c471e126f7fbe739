/**
 * Whether two articles report the same event (docs/pipeline.md, "Clustering"). Two
 * newsrooms rarely share sentences, but they share the facts: names, numbers, the
 * product, the place. So an article is reduced to its keywords (its most frequent
 * content words, the title's counting three times, the brand's own words left out since
 * every article of the brand has them) and two articles are the same event when their
 * keywords overlap enough and they were published within a few days of each other.
 */

/** Days apart two articles of one event may be published. */
export const EVENT_WINDOW_DAYS = 3;
/** Jaccard similarity of keyword sets from which two articles are one event. */
export const SAME_EVENT_SIMILARITY = 0.2;
const KEYWORDS = 30;

/** Function words of the languages we see most, which say nothing about the event. */
const STOPWORDS = new Set(
  `the and for that with this from have has had was were are been being its their they
  them his her she him our your you not but all any can could would should will may might
  must into onto over under about after before than then there here which what when where
  who whom whose why how also just more most much many some such only very said says say
  one two new other out off per via yet who while during against between among because
  each every both few own same too again further once least less like year years week
  weeks today yesterday monday tuesday wednesday thursday friday saturday sunday company
  companies statement told according reported report reports news people time first last
  les des une dans pour par sur est sont avec qui que pas plus aux ces son ses leur cette
  été elle ont mais comme tout deux selon être avait après
  der die das und ist nicht mit von den dem des ein eine einer eines sich auf für auch
  als wie bei nach wird sind hat wurde noch nur aus dass oder über zum zur vor seit
  `.split(/\s+/),
);

const WORD = /[\p{L}\p{N}]+/gu;

/** The article's keywords, most frequent first (ties in order of appearance). */
export function keywords(
  article: { title: string; text: string },
  ignore: ReadonlySet<string> = new Set(),
): Set<string> {
  const counts = new Map<string, number>();
  const count = (text: string, weight: number) => {
    for (const m of text.matchAll(WORD)) {
      const w = m[0].toLowerCase();
      if (w.length < 3 || STOPWORDS.has(w) || ignore.has(w)) continue;
      counts.set(w, (counts.get(w) ?? 0) + weight);
    }
  };
  count(article.title, 3);
  count(article.text, 1);
  // Map iteration is insertion order, and sort is stable: ties keep first appearance.
  const ranked = [...counts].sort((a, b) => b[1] - a[1]);
  return new Set(ranked.slice(0, KEYWORDS).map(([w]) => w));
}

/** The lower-cased words of a brand's terms, left out of its articles' keywords. */
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

export function similarity(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / (a.size + b.size - shared);
}

export const daysApart = (a: string, b: string) =>
  Math.abs(Date.parse(a.slice(0, 10)) - Date.parse(b.slice(0, 10))) / 86_400_000;

export interface Candidate<S> {
  story: S;
  published_at: string;
  keywords: ReadonlySet<string>;
}

/**
 * The story whose article is most similar to this one, among those published within the
 * window, if any is similar enough; undefined means the article starts a new story.
 */
export function findEvent<S>(
  article: { published_at: string; keywords: ReadonlySet<string> },
  candidates: Iterable<Candidate<S>>,
): { story: S; similarity: number } | undefined {
  let best: { story: S; similarity: number } | undefined;
  for (const c of candidates) {
    if (daysApart(c.published_at, article.published_at) > EVENT_WINDOW_DAYS) continue;
    const s = similarity(article.keywords, c.keywords);
    if (s >= SAME_EVENT_SIMILARITY && (!best || s > best.similarity)) {
      best = { story: c.story, similarity: s };
    }
  }
  return best;
}
