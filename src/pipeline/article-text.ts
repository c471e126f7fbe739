import { parseHTML } from 'linkedom';
import type { El } from './dom.js';

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
      .replace(/ ?\n ?/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim(),
    max,
  );
}

/** Classes that mark the page's furniture inside the article's box. */
const FURNITURE_CLASS =
  /(?:^|[-_])(?:captions?|credits?|share|sharing|social|newsletter|subscribe|signup|tags|comments?|promo|related|recommended|more-stories|read-more|author-bio|bio|breadcrumbs?|timestamp|disclaimer)(?:$|[-_])/i;
/** Furniture by its element, whatever its class. */
const FURNITURE_TAGS = 'figcaption, aside, nav, form, button, footer';
/** A block with a furniture class is dropped only when short: a class is a hint, not proof. */
const FURNITURE_MAX = 400;

/**
 * Removes what a reader skips: captions and credits, share and follow blocks, newsletter
 * boxes, related links, tags, comments, author bios and timestamps, by element and by
 * class. Run on the `page` before Readability (which unwraps a classed <div> around a
 * single paragraph), short blocks only, and on what it keeps (it runs with keepClasses).
 */
export function dropFurniture(body: El, page: boolean): void {
  // On a whole page a <form> or <footer> may wrap the article (ASP.NET pages are one form).
  for (const el of [...body.querySelectorAll(page ? 'figcaption' : FURNITURE_TAGS)]) el.remove();
  for (const el of [...body.querySelectorAll('[class]')]) {
    if (!el.isConnected) continue;
    const classes = (el.getAttribute('class') ?? '').split(/\s+/);
    if (!classes.some((c: string) => FURNITURE_CLASS.test(c))) continue;
    const short = (el.textContent ?? '').length <= FURNITURE_MAX;
    if (short || (!page && /^(ul|ol)$/i.test(el.tagName))) el.remove();
  }
}

/**
 * The text of Readability's cleaned HTML with a blank line after every block, so a
 * heading and the paragraph after it stay two sentences (its textContent runs them
 * together), and the furniture out (dropFurniture, dropFurnitureLines). Line breaks in
 * the page's source are only whitespace; a <br> is a line break.
 */
export function blockText(content: string | null | undefined): string | null {
  if (!content) return null;
  const { document } = parseHTML(`<!doctype html><html><body>${content}</body></html>`);
  const body = document.body;
  if (!body) return null;
  dropFurniture(body, false);
  const marked = body.innerHTML
    // Source line breaks are spaces, except in preformatted text.
    .replace(
      /(<pre[\s>][\s\S]*?<\/pre>)|\s+/gi,
      (_m: string, pre: string | undefined) => pre ?? ' ',
    )
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(
      /<\/(p|h[1-6]|li|div|blockquote|section|article|header|pre|tr|figure|ul|ol|table|dl|dd|dt)>/gi,
      '$&\n\n',
    );
  const text = parseHTML(`<!doctype html><html><body>${marked}</body></html>`).document.body
    ?.textContent;
  return text == null ? null : dropFurnitureLines(joinWrappedLines(text));
}

/**
 * Lines a <br> broke in the middle of a sentence joined again: a line that does not end
 * a sentence, followed by one starting in lower case.
 */
function joinWrappedLines(text: string): string {
  return text.replace(/([^\s.!?:;…"”’)\]])[^\S\n]*\n[^\S\n]*(?=\p{Ll})/gu, '$1 ');
}

/** A short line that dates the page rather than says anything: "Updated Nov 19, 6:55 AM". */
const TIMESTAMP =
  /^(?:updated|posted|published|last updated|modified|first published|atualizado|publicado|mis à jour|publié|aktualisiert|veröffentlicht)\b.{0,80}\d/i;
const CREDIT =
  /^\(?(?:(?:image|photo|picture|video) )?credits?\s*:|^\(?(?:photos?|images?|pictures?)\s*:/i;
/** A numbered note of a reference list: "[1] Ruskin KJ, … 2015; 28: 685-690." */
const REFERENCE = /^\[\d{1,3}\]\s/;
const TAGS =
  /^(?:tags?|topics?|filed under|categories|categorias?|tagged|themen|mots-clés)\s*:?\s/i;
const NEWSLETTER =
  /\b(?:sign up (?:for|to) (?:our|the)\b.{0,60}\bnewsletter|subscribe to (?:our|the)\b.{0,40}\b(?:newsletter|channel)|in your inbox|want more stories like this|every day we send an email|follow @?\w+ on (?:twitter|x|facebook|instagram))/i;
const RELATED_HEADING =
  /^(?:you (?:may|might) also like|related(?: articles| stories| coverage| content| posts)?|read more|more from\b.{0,40}|more on this(?: story)?|recommended(?: for you)?|most (?:read|popular|viewed)|see also|trending(?: now)?|also read|read next|what to read next|leia também|veja também|lire aussi|mehr zum thema)\s*(?:\.\.\.|…|:)?$/i;
/** A line that is a link's title in a list, not a sentence: short, no full stop. */
const isTitleLine = (line: string) => line.length <= 140 && !/[.!?。！？]["”’)」]?$/.test(line);

/**
 * Lines that are furniture whatever their markup: timestamps, credits, tags, reference
 * notes, newsletter pitches; a related-links heading and the titles listed under it; and, before the first
 * paragraph, short lines that are no sentence (a section label, a byline with its date).
 */
function dropFurnitureLines(text: string): string {
  const blocks = text.split(/\n\s*\n/);
  const kept: string[] = [];
  let started = false;
  let inRelated = false;
  for (const raw of blocks) {
    const block = raw.replace(/[^\S\n]+/g, ' ').trim();
    if (!block) continue;
    if (RELATED_HEADING.test(block)) {
      inRelated = true;
      continue;
    }
    // A listed headline may ask or exclaim; it does not end a paragraph's last sentence.
    if (inRelated && block.length <= 140 && !/\.["”’)]?$/.test(block)) continue;
    inRelated = false;
    if (block.length <= 160 && (TIMESTAMP.test(block) || CREDIT.test(block))) continue;
    if (block.length <= 400 && (TAGS.test(block) || REFERENCE.test(block))) continue;
    if (block.length <= 300 && NEWSLETTER.test(block)) continue;
    if (!started && block.length <= 100 && isTitleLine(block)) continue;
    started = true;
    kept.push(raw);
  }
  return kept.join('\n\n');
}
