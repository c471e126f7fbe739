/**
 * Sentences, as the pipeline quotes and scores them: a paragraph split after ". ", "? ",
 * "! ", "… " (and their closing quotes) where a capital or a digit follows, and after
 * "。", "！", "？". A time zone never starts one ("at 9 a.m. ET"), nor does what follows
 * a title ("Mr. Smith"), a short month or "No." before a number ("Sept. 1", "No. 2") or
 * "a.m." before a day or a month ("9 a.m. Monday"). Other abbreviations before a capital
 * split: a price paid for not needing a language model here.
 */
const SENTENCE_END =
  /(?<=[.!?…]["”’)]*)\s+(?=["“‘(]?[\p{Lu}\p{N}])(?!(?:ET|EST|EDT|CT|CST|PT|PST|PDT|GMT|BST|CET|UTC)\b)|(?<=[。！？])/u;
const TITLE = /(?:^|[^\p{L}])(?:Mr|Mrs|Ms|Dr|Prof|Gen|Sen|Rep|Gov|Lt|Col|Sgt|Capt|Rev)\.$/u;
const BEFORE_NUMBER = /(?:^|[^\p{L}])(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec|No|Nos)\.$/u;
const CLOCK = /(?:^|[^\p{L}])[ap]\.m\.$/u;
const DAY_OR_MONTH =
  /^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b|^(?:January|February|March|April|May|June|July|August|September|October|November|December)\b/u;

/** Whether a sentence end found before `after` is only an abbreviation's full stop. */
function continues(before: string, after: string): boolean {
  const head = before.trimEnd();
  return (
    TITLE.test(head) ||
    (BEFORE_NUMBER.test(head) && /^\d/.test(after)) ||
    (CLOCK.test(head) && DAY_OR_MONTH.test(after))
  );
}

/** The sentences of one paragraph, trimmed, whitespace collapsed. */
export function splitSentences(paragraph: string): string[] {
  const out: string[] = [];
  for (const piece of paragraph.split(SENTENCE_END)) {
    const text = piece.replace(/\s+/g, ' ').trim();
    if (!text) continue;
    if (out.length > 0 && continues(out.at(-1)!, text)) out[out.length - 1] += ` ${text}`;
    else out.push(text);
  }
  return out;
}

/** The sentences of a text, paragraph by paragraph. */
export const sentencesOf = (text: string): string[] =>
  text.split(/\n\s*\n|\n/).flatMap(splitSentences);

/** The sentence around text.slice(start, end), within its line, whole and trimmed. */
export function sentenceAround(text: string, start: number, end: number): string {
  const before = text.slice(0, start);
  let from = before.lastIndexOf('\n') + 1;
  for (const m of before.matchAll(/[.!?…。！？]["”’)]*\s+/g)) {
    const at = m.index + m[0].length;
    if (!continues(before.slice(0, at), text.slice(at))) from = Math.max(from, at);
  }
  let to = text.length;
  for (const m of text.slice(end).matchAll(/[.!?…。！？]["”’)]*(?=\s|$)|\n/g)) {
    const at = end + m.index + (m[0] === '\n' ? 0 : m[0].length);
    if (m[0] === '\n' || !continues(text.slice(0, at), text.slice(at).trimStart())) {
      to = at;
      break;
    }
  }
  return text.slice(from, to).replace(/\s+/g, ' ').trim();
}
