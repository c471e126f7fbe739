/**
 * Finds which brands a text mentions, for any number of brands at once (docs/pipeline.md,
 * "Detection"). The terms of every brand are indexed by their first word, so a text is
 * read once and each of its words costs one map lookup, however many brands there are.
 *
 * A brand's terms are its name, its host, the host's first label and its aliases, matched
 * as whole words: `Acme's` and `Acme’s` mention Acme, `Acmeville` does not. Names, labels
 * and aliases are proper nouns, so they count only when written with a capital (`Acme`,
 * `ACME`) or exactly as configured (`eBay`): "the acme of his career" mentions nobody.
 * A host (`acme.com`) counts in any case.
 */

export interface BrandTerms {
  host: string;
  name: string;
  aliases?: readonly string[];
}

interface Term<T> {
  brand: T;
  /** The term's words, lower-cased. */
  words: string[];
  /** What separates its words (whitespace as one space), e.g. `.` in a host. */
  seps: string[];
  /** The term as configured, for the exact-spelling rule. */
  text: string;
  rule: CaseRule;
}

/**
 * `any`: a host, in any case. `proper`: a name or alias, capitalised or spelled exactly
 * as configured. `capital`: the host's first label, which is lower case by nature, so
 * only capitalised.
 */
type CaseRule = 'any' | 'proper' | 'capital';

const WORD = /[\p{L}\p{N}]+/gu;
const normalizeSep = (s: string) => s.replace(/\s+/g, ' ');

/** Where a brand is named: text.slice(start, end). */
export interface Occurrence<T> {
  brand: T;
  start: number;
  end: number;
}

interface Token {
  word: string;
  start: number;
  end: number;
}

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(WORD)) {
    out.push({ word: m[0], start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** The words a brand is known by, trimmed, at least two characters, each once. */
function brandTerms(brand: BrandTerms): { text: string; rule: CaseRule }[] {
  const label = brand.host.split('.')[0] ?? brand.host;
  const seen = new Set<string>();
  const out: { text: string; rule: CaseRule }[] = [];
  const add = (text: string, rule: CaseRule) => {
    const t = text.trim();
    if (t.length < 2 || seen.has(t)) return;
    seen.add(t);
    out.push({ text: t, rule });
  };
  add(brand.host, 'any');
  add(brand.name, 'proper');
  for (const a of brand.aliases ?? []) add(a, 'proper');
  add(label, 'capital');
  return out;
}

export class BrandMatcher<T> {
  private readonly byFirstWord = new Map<string, Term<T>[]>();

  constructor(brands: Iterable<{ brand: T; terms: BrandTerms }>) {
    for (const { brand, terms } of brands) {
      for (const { text, rule } of brandTerms(terms)) {
        const tokens = tokenize(text);
        if (tokens.length === 0) continue;
        const term: Term<T> = {
          brand,
          words: tokens.map((t) => t.word.toLowerCase()),
          seps: tokens.slice(1).map((t, i) => normalizeSep(text.slice(tokens[i]!.end, t.start))),
          text,
          rule,
        };
        const first = term.words[0]!;
        const list = this.byFirstWord.get(first);
        if (list) list.push(term);
        else this.byFirstWord.set(first, [term]);
      }
    }
  }

  /** The brands the text mentions, each once, in order of first mention. */
  match(text: string): T[] {
    const tokens = tokenize(text);
    const found = new Set<T>();
    for (let i = 0; i < tokens.length; i++) {
      const terms = this.byFirstWord.get(tokens[i]!.word.toLowerCase());
      if (!terms) continue;
      for (const term of terms) {
        if (!found.has(term.brand) && this.matchesAt(text, tokens, i, term)) found.add(term.brand);
      }
    }
    return [...found];
  }

  /**
   * Every place the text names a brand, in order: where a brand's terms overlap (`Acme`
   * inside `Acme Corp`), the longest counts once.
   */
  occurrences(text: string): Occurrence<T>[] {
    const tokens = tokenize(text);
    const out: Occurrence<T>[] = [];
    for (let i = 0; i < tokens.length; i++) {
      const terms = this.byFirstWord.get(tokens[i]!.word.toLowerCase());
      if (!terms) continue;
      const seen = new Map<T, number>();
      for (const term of terms) {
        if (!this.matchesAt(text, tokens, i, term)) continue;
        const last = i + term.words.length - 1;
        seen.set(term.brand, Math.max(seen.get(term.brand) ?? i, last));
      }
      for (const [brand, last] of seen) {
        const prev = out.findLast((o) => o.brand === brand);
        // A shorter term starting inside an occurrence already counted is part of it.
        if (prev && prev.end > tokens[i]!.start) continue;
        out.push({ brand, start: tokens[i]!.start, end: tokens[last]!.end });
      }
    }
    return out;
  }

  private matchesAt(text: string, tokens: Token[], i: number, term: Term<T>): boolean {
    const last = i + term.words.length - 1;
    if (last >= tokens.length) return false;
    for (let k = 1; k < term.words.length; k++) {
      const prev = tokens[i + k - 1]!;
      const tok = tokens[i + k]!;
      if (tok.word.toLowerCase() !== term.words[k]) return false;
      if (normalizeSep(text.slice(prev.end, tok.start)) !== term.seps[k - 1]) return false;
    }
    if (term.rule === 'any') return true;
    const seen = text.slice(tokens[i]!.start, tokens[last]!.end);
    const initial = seen[0]!;
    if (initial !== initial.toLowerCase()) return true;
    return term.rule === 'proper' && seen === term.text;
  }
}

/** Whether the text mentions this one brand. */
export function mentionsBrand(text: string, brand: BrandTerms): boolean {
  return new BrandMatcher([{ brand: true, terms: brand }]).match(text).length > 0;
}
