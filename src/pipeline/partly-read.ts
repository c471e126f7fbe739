/** A fetched page this short was likely cut (a paywall, a teaser). */
export const PARTLY_READ_WORDS = 150;

/**
 * How many words of a page the service fetched could be read, when so few that the page
 * was likely cut; null when read in full. Only a fetched page (it has the charset it was
 * decoded from) can have been cut short: a text given to the service (an import, the
 * partner API, the demo) is the article as its sender has it.
 */
export function partlyRead(article: { text: string; charset?: string | null }): number | null {
  if (!article.charset) return null;
  let words = article.text.split(/\s+/).filter(Boolean).length;
  // Chinese and Japanese are written without spaces: their words are told by the
  // dictionary Intl.Segmenter carries.
  if (words < PARTLY_READ_WORDS && UNSPACED.test(article.text)) {
    words = 0;
    for (const s of SEGMENTER.segment(article.text)) if (s.isWordLike) words++;
  }
  return words < PARTLY_READ_WORDS ? words : null;
}

const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const SEGMENTER = new Intl.Segmenter(undefined, { granularity: 'word' });
