/**
 * Sentences, as the pipeline quotes and scores them: a paragraph split after ". ", "? ",
 * "! ", "… " (and their closing quotes) where a capital or a digit follows, and after
 * "。", "！", "？". Abbreviations before a capital ("Mr. Smith") split too: a price paid
 * for not needing a language model here.
 */
const SENTENCE_END = /(?<=[.!?…]["”’)]*)\s+(?=["“‘(]?[\p{Lu}\p{N}])|(?<=[。！？])/u;

/** The sentences of one paragraph, trimmed, whitespace collapsed. */
export const splitSentences = (paragraph: string): string[] =>
  paragraph
    .split(SENTENCE_END)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter(Boolean);

/** The sentences of a text, paragraph by paragraph. */
export const sentencesOf = (text: string): string[] =>
  text.split(/\n\s*\n|\n/).flatMap(splitSentences);
