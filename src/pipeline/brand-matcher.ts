import { isCommonWord } from './common-words.js';

/**
 * Finds which brands a text mentions, for any number of brands at once (docs/pipeline.md,
 * "Detection"). The terms of every brand are indexed by their first word, so a text is
 * read once and each of its words costs one map lookup, however many brands there are.
 *
 * A brand's terms are its name, its host, the host's first label and its aliases, matched
 * as whole words: `Acme's` and `Acme’s` mention Acme, `Acmeville` does not. Names, labels
 * and aliases are proper nouns, so they count only when written with a capital (`Acme`,
 * `ACME`) or exactly as configured (`eBay`): "the acme of his career" mentions nobody.
 * A host (`acme.com`) counts in any case. Names in scripts written without spaces
 * (Chinese, Japanese) are found inside the runs of such characters.
 *
 * A name that is also a common word ("Next", "Block", "Orange") is the brand only where
 * the writing shows a proper noun: each place it is found says whether it is `sure`
 * (see MatchPolicy), and mentions.ts decides from that and the brand's policy.
 */

/** How a brand's name is told apart from the same word meaning something else. */
export interface MatchPolicy {
  /**
   * Proper-noun context for the name and aliases: `on` for a name that is also a common
   * word, `off` for one that never is, `auto` (the default) when it is an everyday English
   * word (common-words.ts).
   * Under it a place is sure only mid-sentence, not in a headline written in Title Case,
   * and not beside another capitalised word ("Times Square", "Orange County").
   */
  strict?: 'auto' | 'on' | 'off';
  /** Count the name and aliases only as spelled in the configuration (`eBay`, `smart`). */
  exactCase?: boolean;
  /** Words or phrases of which the article must name one (any case): "Jack Dorsey", "Cash App". */
  require?: readonly string[];
  /** Phrases holding the name that are something else: "Nikola Tesla", "Tesla coil". */
  exclude?: readonly string[];
}

export interface BrandTerms {
  host: string;
  name: string;
  aliases?: readonly string[];
  match?: MatchPolicy;
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
  /** A common word under proper-noun context: sure only where the writing shows a name. */
  strict: boolean;
}

/**
 * `any`: a host, in any case. `proper`: a name or alias, capitalised or spelled exactly
 * as configured. `exact`: only as configured. `capital`: the host's first label, which is
 * lower case by nature, so only capitalised.
 */
type CaseRule = 'any' | 'proper' | 'exact' | 'capital';

/** Runs of one kind: letters and digits of spaced scripts, or Han, kana and the like. */
const UNSPACED = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\u30FC';
const WORD = new RegExp(`[${UNSPACED}]+|(?:(?![${UNSPACED}])[\\p{L}\\p{N}])+`, 'gu');
const IS_UNSPACED = new RegExp(`^[${UNSPACED}]`, 'u');
/** Separators compared as written, except spacing and the apostrophe's forms ("l’impôt"). */
const normalizeSep = (s: string) => s.replace(/\s+/g, ' ').replace(/[’‘ʼ]/g, "'");

/** Where a brand is named: text.slice(start, end). */
export interface Occurrence<T> {
  brand: T;
  start: number;
  end: number;
  /** Whether this place alone shows the brand is meant (false: "Next steps", a link). */
  sure: boolean;
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
  const exact = brand.match?.exactCase === true;
  const seen = new Set<string>();
  const out: { text: string; rule: CaseRule }[] = [];
  const add = (text: string, rule: CaseRule) => {
    const t = text.trim();
    if (t.length < 2 || seen.has(t)) return;
    seen.add(t);
    out.push({ text: t, rule });
  };
  add(brand.host, 'any');
  for (const name of [brand.name, ...(brand.aliases ?? [])]) {
    add(name, exact ? 'exact' : 'proper');
    // "The New York Times" is "the New York Times" mid-sentence.
    const bare = /^the\s+(?=\S+\s)/i.exec(name.trim());
    if (bare) add(name.trim().slice(bare[0].length), exact ? 'exact' : 'proper');
  }
  // A brand that writes its name in lower case ("monday", "eBay") is not "Monday" or "Ebay".
  const lower = brand.name.trim()[0] !== brand.name.trim()[0]?.toUpperCase();
  if (!exact && !lower) add(label, 'capital');
  return out;
}

/** Whether the policy asks for proper-noun context for this term. */
function isStrict(policy: MatchPolicy | undefined, words: readonly string[]): boolean {
  const mode = policy?.strict ?? 'auto';
  if (mode !== 'auto') return mode === 'on';
  return words.length === 1 && isCommonWord(words[0]!);
}

/** What follows a company's name in its legal form: "Block Inc", "Shell plc". */
const SUFFIX = new Set(
  'inc corp corporation ltd llc plc ag sa se nv gmbh co company group holdings'.split(' '),
);

/** Words a capitalised neighbour may be without making the name part of a longer one. */
const NOT_A_NAME = new Set(
  (
    `${[...SUFFIX].join(' ')} ` +
    'monday tuesday wednesday thursday friday saturday sunday january february march ' +
    'april may june july august september october november december ' +
    'the a an and but or so yet if when while after before as at in on of by to from ' +
    'with since until because although though today yesterday now then also still even ' +
    'meanwhile however why how what where who which this that these those there here it ' +
    'its his her their our my your we they he she i you'
  ).split(' '),
);

const isCapitalised = (word: string) => {
  const c = word[0]!;
  return c !== c.toLowerCase();
};
/** An acronym such as CEO: capitals only, two at least. */
const isAllCaps = (word: string) => /^\p{Lu}{2,}$/u.test(word);

/** Whether the text at `at` starts a sentence, a line, a quotation or a list item. */
function startsSentence(text: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && (text[i] === ' ' || text[i] === '\t')) i--;
  return i < 0 || /[\n.!?:;"“”‘’'([—–\-•|*#]/.test(text[i]!);
}

/** The sentence around [start, end): from the last stop or line break to the next. */
function sentenceSpan(text: string, start: number, end: number): string {
  let from = start;
  while (from > 0 && !/[\n.!?]/.test(text[from - 1]!)) from--;
  let to = end;
  while (to < text.length && !/[\n.!?]/.test(text[to]!)) to++;
  return text.slice(from, start) + text.slice(end, to);
}

/** A headline or label in Title Case, where every word is capitalised anyway. */
function isTitleCase(rest: string): boolean {
  // The first word is capitalised in any sentence.
  const long = (rest.match(/\p{L}{4,}/gu) ?? []).slice(1);
  if (long.length < 3) return false;
  return long.filter(isCapitalised).length / long.length >= 0.75;
}

/** Whether a capitalised word beside a name makes it part of a longer one. */
function extendsName(word: string): boolean {
  if (NOT_A_NAME.has(word.toLowerCase())) return false;
  if (isAllCaps(word)) return false; // "Apple CEO Tim Cook"
  if (/\p{Ll}\p{Lu}/u.test(word)) return false; // a coined product: "Apple CarPlay"
  return isCapitalised(word) || /^\p{N}+\p{L}/u.test(word); // "Times Square", "Block 1B"
}

export class BrandMatcher<T> {
  private readonly byFirstWord = new Map<string, Term<T>[]>();
  /** Terms in scripts without spaces, found inside a run rather than word by word. */
  private readonly unspaced: Term<T>[] = [];
  private readonly excluded = new Map<T, readonly string[]>();
  private readonly policies = new Map<T, MatchPolicy>();

  constructor(brands: Iterable<{ brand: T; terms: BrandTerms }>) {
    for (const { brand, terms } of brands) {
      if (terms.match) this.policies.set(brand, terms.match);
      const exclude = (terms.match?.exclude ?? []).map((p) => p.trim()).filter(Boolean);
      if (exclude.length > 0) this.excluded.set(brand, exclude);
      for (const { text, rule } of brandTerms(terms)) {
        const tokens = tokenize(text);
        if (tokens.length === 0) continue;
        const words = tokens.map((t) => t.word.toLowerCase());
        const term: Term<T> = {
          brand,
          words,
          seps: tokens.slice(1).map((t, i) => normalizeSep(text.slice(tokens[i]!.end, t.start))),
          text,
          rule,
          strict: rule !== 'any' && isStrict(terms.match, words),
        };
        if (IS_UNSPACED.test(text)) {
          this.unspaced.push(term);
          continue;
        }
        const first = words[0]!;
        const list = this.byFirstWord.get(first);
        if (list) list.push(term);
        else this.byFirstWord.set(first, [term]);
      }
    }
  }

  /**
   * Every place the text names a brand, in order: where a brand's terms overlap (`Acme`
   * inside `Acme Corp`), the longest counts once; a place inside one of the brand's
   * excluded phrases does not count.
   */
  occurrences(text: string): Occurrence<T>[] {
    const tokens = tokenize(text);
    const out: Occurrence<T>[] = [];
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!;
      if (this.unspaced.length > 0 && IS_UNSPACED.test(token.word)) {
        this.findUnspaced(token, out);
        continue;
      }
      const terms = this.byFirstWord.get(token.word.toLowerCase());
      if (!terms) continue;
      const seen = new Map<T, { last: number; sure: boolean }>();
      for (const term of terms) {
        if (!this.matchesAt(text, tokens, i, term)) continue;
        const last = i + term.words.length - 1;
        const sure = this.isSure(text, tokens, i, last, term);
        const best = seen.get(term.brand);
        if (!best || last > best.last || (last === best.last && sure)) {
          seen.set(term.brand, { last, sure });
        }
      }
      for (const [brand, { last, sure }] of seen) {
        const prev = out.findLast((o) => o.brand === brand);
        // A shorter term starting inside an occurrence already counted is part of it.
        if (prev && prev.end > token.start) continue;
        out.push({ brand, start: token.start, end: tokens[last]!.end, sure });
      }
    }
    if (this.excluded.size === 0) return out;
    const lower = text.toLowerCase();
    return out.filter((o) => !this.isExcluded(lower, o));
  }

  /** The brands the text mentions surely, each once, in order of first mention. */
  match(text: string): T[] {
    return [
      ...new Set(
        this.occurrences(text)
          .filter((o) => o.sure)
          .map((o) => o.brand),
      ),
    ];
  }

  /** The brand's match policy, if it has one. */
  policyOf(brand: T): MatchPolicy | undefined {
    return this.policies.get(brand);
  }

  private findUnspaced(token: Token, out: Occurrence<T>[]) {
    for (const term of this.unspaced) {
      for (let at = token.word.indexOf(term.text); at >= 0; ) {
        const start = token.start + at;
        out.push({ brand: term.brand, start, end: start + term.text.length, sure: true });
        at = token.word.indexOf(term.text, at + term.text.length);
      }
    }
    out.sort((a, b) => a.start - b.start);
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
    if (normalizeSep(seen) === normalizeSep(term.text) && term.rule !== 'capital') return true;
    // A common word the brand writes in lower case ("smart") is never capitalised for it.
    if (term.rule === 'exact' || (term.strict && !isCapitalised(term.text))) return false;
    // A name of several words is one wherever one of its words is capitalised.
    return tokens.slice(i, last + 1).some((t) => isCapitalised(t.word));
  }

  /**
   * Whether a place alone shows the brand: a host is unless it is part of a link
   * (`pic.twitter.com/…`, `twitter.com/someone`); a name is unless it is a common word
   * (strict) seen where any word is capitalised or inside a longer name.
   */
  private isSure(text: string, tokens: Token[], i: number, last: number, term: Term<T>): boolean {
    const start = tokens[i]!.start;
    const end = tokens[last]!.end;
    if (term.rule === 'any') {
      return !/[./@]/.test(text[start - 1] ?? '') && !/^\/\S/.test(text.slice(end, end + 2));
    }
    if (!term.strict) return true;
    const seen = text.slice(start, end);
    // Lower case reads as the word; capitals all along ("UP NEXT") as a shouted label.
    if (seen === seen.toLowerCase() || (seen.length > 1 && seen === seen.toUpperCase())) {
      return false;
    }
    const after = tokens[last + 1];
    const spaced = after !== undefined && /^[^\S\n]+$/.test(text.slice(end, after.start));
    // "Next's profits", "Apple CEO Tim Cook", "Block Inc.": a name even where a sentence starts.
    if (/^['’]s\b/.test(text.slice(end, end + 3))) return true;
    if (spaced && (isAllCaps(after.word) || SUFFIX.has(after.word.toLowerCase()))) return true;
    if (startsSentence(text, start)) return false;
    // A counted thing: "1 Red, 1 Orange", "3 Apples".
    if (/\p{N}[^\S\n]+$/u.test(text.slice(Math.max(0, start - 4), start))) return false;
    if (isTitleCase(sentenceSpan(text, start, end))) return false;
    const before = tokens[i - 1];
    if (
      before &&
      /^[^\S\n]*[®™]?[^\S\n]+$/.test(text.slice(before.end, start)) &&
      extendsName(before.word)
    ) {
      return false;
    }
    return !(spaced && extendsName(after.word));
  }

  /** Whether the place is inside one of its brand's excluded phrases (`lower`: the text). */
  private isExcluded(lower: string, o: Occurrence<T>): boolean {
    const phrases = this.excluded.get(o.brand);
    if (!phrases) return false;
    return phrases.some((phrase) => {
      const p = phrase.toLowerCase();
      // Every place the phrase starts within its own length before the name.
      for (let at = lower.indexOf(p, Math.max(0, o.end - p.length)); at >= 0; ) {
        if (at > o.start) break;
        if (at + p.length >= o.end && isWordAt(lower, at, at + p.length)) return true;
        at = lower.indexOf(p, at + 1);
      }
      return false;
    });
  }
}

/** Whether text[start, end) is bounded by non-letters on both sides. */
function isWordAt(text: string, start: number, end: number): boolean {
  const letter = /[\p{L}\p{N}]/u;
  return !letter.test(text[start - 1] ?? '') && !letter.test(text[end] ?? '');
}

/**
 * Whether a brand found in a text is mentioned there: its required words are named, and
 * one place is sure or the required words vouch for every place.
 */
export function isMentioned(policy: MatchPolicy | undefined, text: string, sure: boolean) {
  return hasRequired(text, policy) && (sure || (policy?.require?.length ?? 0) > 0);
}

/** Whether the text names this one brand surely (see MatchPolicy; required words too). */
export function mentionsBrand(text: string, brand: BrandTerms): boolean {
  const found = new BrandMatcher([{ brand: true, terms: brand }]).occurrences(text);
  return (
    found.length > 0 &&
    isMentioned(
      brand.match,
      text,
      found.some((o) => o.sure),
    )
  );
}

/**
 * Whether the text names the brand at all, sure or not (required words and excluded
 * phrases still apply): a partner's import is its own statement that the article is
 * about the brand, so "Next recalls kettles" at a sentence's start is enough there.
 */
export function namesBrand(text: string, brand: BrandTerms): boolean {
  if (!hasRequired(text, brand.match)) return false;
  return new BrandMatcher([{ brand: true, terms: brand }]).occurrences(text).length > 0;
}

/**
 * Whether the text names one of the policy's required words, in any case, as whole
 * words; true when it requires none.
 */
function hasRequired(text: string, policy: MatchPolicy | undefined): boolean {
  const required = (policy?.require ?? []).map((r) => r.trim().toLowerCase()).filter(Boolean);
  if (required.length === 0) return true;
  const lower = text.toLowerCase();
  return required.some((r) => {
    for (let at = lower.indexOf(r); at >= 0; at = lower.indexOf(r, at + 1)) {
      if (isWordAt(lower, at, at + r.length)) return true;
    }
    return false;
  });
}
