import { parseHTML } from 'linkedom';

/**
 * The article's text as a reader sees it (docs/pipeline.md, "Extraction"), from the HTML
 * Readability keeps: one block a paragraph, the page's furniture left out, and no longer
 * than the limit, cut at a paragraph.
 */
export const MAX_TITLE = 500;
export const MAX_TEXT = 100_000;

/**
 * Where a text longer than `max` is cut: at the last paragraph break that keeps at least
 * half of it, else the last line break, sentence end or space, so a stored text ends on a
 * whole paragraph (or at worst a whole word), never mid-sentence.
 */
function cutAt(s: string, max: number): string {
  if (s.length <= max) return s;
  const head = s.slice(0, max + 1);
  // Each boundary, with how many of its characters the kept text ends with.
  const boundaries: [RegExp, number][] = [
    [/\n\n/g, 0],
    [/\n/g, 0],
    [/[.!?…。](?=\s)/g, 1],
    [/\s/g, 0],
  ];
  for (const [boundary, kept] of boundaries) {
    let at = -1;
    for (const m of head.matchAll(boundary)) if (m.index + kept <= max) at = m.index + kept;
    if (at >= max / 2) return s.slice(0, at).trimEnd();
  }
  // One word longer than half the limit: cut it, but not between the halves of a pair.
  const code = s.charCodeAt(max - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/**
 * Plain text as stored: control characters out (NUL included), whitespace collapsed, and
 * no longer than `max`, cut at a paragraph (see cutAt).
 */
export function cleanText(s: string, max: number): string {
  return cutAt(
    s
      .replace(/(?![\n\t\r])\p{Cc}/gu, '')
      .replace(/\r\n?/g, '\n')
      // Every run of whitespace but line breaks becomes one space first, so the next
      // pattern is linear: no nested quantifiers over the same characters (no ReDoS).
      .replace(/[^\S\n]+/g, ' ')
      .replace(/ ?\n(?: ?\n)+ ?/g, '\n\n')
      .trim(),
    max,
  );
}

/**
 * The text of Readability's cleaned HTML with a line break after every block, so a
 * heading and the paragraph after it stay two sentences (its textContent runs them
 * together).
 */
export function blockText(content: string | null | undefined): string | null {
  if (!content) return null;
  const marked = content
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(
      /<\/(p|h[1-6]|li|div|blockquote|section|article|header|pre|tr|figcaption)>/gi,
      '$&\n\n',
    );
  return (
    parseHTML(`<!doctype html><html><body>${marked}</body></html>`).document.body?.textContent ??
    null
  );
}
