/**
 * Sentences, as the pipeline quotes and scores them: a paragraph split after ". ", "? ",
 * "! ", "… " (and their closing quotes) where a capital or a digit follows, and after
 * "。", "！", "？". Abbreviations before a capital ("Mr. Smith") split too: a price paid
 * for not needing a language model here; a time zone never starts one ("at 9 a.m. ET").
 */
const SENTENCE_END =
  /(?<=[.!?…]["”’)]*)\s+(?=["“‘(]?[\p{Lu}\p{N}])(?!(?:ET|EST|EDT|CT|CST|PT|PST|PDT|GMT|BST|CET|UTC)\b)|(?<=[。！？])/u;

/** The sentences of one paragraph, trimmed, whitespace collapsed. */
export const splitSentences = (paragraph: string): string[] =>
  paragraph
    .split(SENTENCE_END)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter(Boolean);

/** The sentences of a text, paragraph by paragraph. */
export const sentencesOf = (text: string): string[] =>
  text.split(/\n\s*\n|\n/).flatMap(splitSentences);

/** The sentence around text.slice(start, end), within its line, whole and trimmed. */
export function sentenceAround(text: string, start: number, end: number): string {
  const before = text.slice(0, start);
  let from = before.lastIndexOf('\n') + 1;
  for (const m of before.matchAll(/[.!?…。！？]["”’)]*\s+/g)) {
    from = Math.max(from, m.index + m[0].length);
  }
  const rest = /[.!?…。！？]["”’)]*(?=\s|$)|\n/.exec(text.slice(end));
  const to = rest ? end + rest.index + (rest[0] === '\n' ? 0 : rest[0].length) : text.length;
  return text.slice(from, to).replace(/\s+/g, ' ').trim();
}
