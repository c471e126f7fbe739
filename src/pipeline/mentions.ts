import { getDomain } from 'tldts';
import { BrandMatcher, type BrandTerms, isMentioned, type Occurrence } from './brand-matcher.js';
import { sentenceAround, splitSentences } from './sentences.js';

/**
 * Which brands an article really talks about (docs/pipeline.md, "Detection"): a brand
 * named only in the page's furniture (share and follow links, photo credits, embed
 * labels, bylines, source lists, the copyright line) is not a mention, nor is the
 * publisher naming itself. Extraction already drops menus, footers and sidebars; these
 * are the lines that survive it inside the article's own box.
 */
export interface MentionArticle {
  title: string;
  text: string;
  url: string;
  publisher: string;
}

export interface Mention<T> {
  brand: T;
  /** Times the title and text name the brand outside boilerplate. */
  count: number;
  /** Up to three sentences naming it, whole: the title first when it does. */
  evidence: string[];
}

const EVIDENCE = 3;
const SOCIAL =
  'twitter|x|facebook|instagram|linkedin|youtube|tiktok|threads|bluesky|mastodon|pinterest|reddit|whatsapp|telegram|snapchat|flipboard|google news|rss|email|e-mail';
const NETWORK = new RegExp(`^(?:${SOCIAL})$`, 'i');

/**
 * A row of short links, two of them networks at least: "Twitter | Facebook | Acme", or
 * share buttons side by side with no separator: "Whatsapp Facebook Pint Baixar".
 */
function isLinkRow(line: string): boolean {
  const parts = line.split(/\s*[|·•]\s*/).filter(Boolean);
  if (
    parts.length >= 3 &&
    parts.every((p) => p.length <= 30) &&
    parts.filter((p) => NETWORK.test(p)).length >= 2
  ) {
    return true;
  }
  const words = line.trim().split(/\s+/);
  return (
    words.length <= 6 &&
    !/[.!?]$/.test(line.trim()) &&
    words.filter((w) => NETWORK.test(w)).length >= 2
  );
}

/**
 * Whether a place sits in a run of headlines strung together with pipes, a list of other
 * stories: "Senators call for 5G security coordinator | Acme gets questions over location
 * tracking | Louisiana hit by ransomware attack".
 */
function inHeadlineList(line: string, at: number): boolean {
  const pipes = [...line.matchAll(/ \| /g)].map((m) => m.index);
  if (pipes.length < 2) return false;
  return pipes.some((p) => p < at) && pipes.some((p) => p > at);
}

/**
 * Lines that are the page's furniture, each with the reason it is not the article
 * speaking. Short lines only, so that a real sentence starting the same way stays.
 */
const BOILERPLATE: readonly { why: string; test: (line: string) => boolean }[] = [
  {
    why: 'share and follow links: "Follow us on Twitter | Facebook", "Share on LinkedIn"',
    test: (l) =>
      l.length <= 160 &&
      (isLinkRow(l) ||
        new RegExp(
          `^(?:follow|share|like|subscribe|join|connect with|find)\\b.{0,60}\\b(?:${SOCIAL})\\b`,
          'i',
        ).test(l)),
  },
  {
    why: 'invitations to follow or reach someone elsewhere: "Be sure to visit Acme on Facebook, Twitter and Instagram", "Reach the reporters on Twitter at …"',
    test: (l) =>
      l.length <= 200 &&
      (new RegExp(
        `\\b(?:follow|visit|find|like|join|connect with)\\b.{0,60}\\bon (?:${SOCIAL})\\s*(?:,|and|&)\\s*(?:${SOCIAL})\\b`,
        'i',
      ).test(l) ||
        /^(?:reach|contact|email|e-mail|write to)\s+(?:the\s+)?(?:reporters?|authors?|writers?|us)\b/i.test(
          l,
        )),
  },
  {
    why: 'affiliate notices: "Acme may earn an affiliate commission if you buy through links"',
    test: (l) =>
      l.length <= 300 &&
      /\bmay (?:earn|receive|get) an? (?:small )?(?:affiliate )?commission\b/i.test(l),
  },
  {
    why: 'photo and video credits: "Photo: Acme", "(Image credit: Acme)", "… / Getty Images"',
    test: (l) =>
      l.length <= 200 &&
      (/^\(?(?:photo(?:graph)?s?|images?|pictures?|illustrations?|videos?|graphics?|credits?|fotos?|bild)(?: credit| by| courtesy(?: of)?)?\s*[:(©]/i.test(
        l,
      ) ||
        /^\(?(?:photo|image|picture)\s+(?:by|courtesy of)\s/i.test(l) ||
        /[/|]\s*(?:getty images|reuters|ap(?: photo)?|afp|epa|shutterstock|alamy|unsplash)\)?\.?$/i.test(
          l,
        ) ||
        /^\(?(?:credit|©)\s*[:\s]/i.test(l)),
  },
  {
    why: 'embed labels: "Embed from Getty Images", "View this post on Instagram"',
    test: (l) =>
      l.length <= 200 &&
      /^(?:embed from|watch on|view this post on|a post shared by|listen on|click to (?:play|expand|enlarge)|open in)\b/i.test(
        l,
      ),
  },
  {
    why: 'bylines and reporting credits: "By Jane Doe, Acme News", "Reporting by …; Editing by …"',
    test: (l) =>
      // "By Tuesday, Acme had recalled the vans." is a sentence: a byline has no full stop.
      (l.length <= 120 &&
        /^(?:[Bb]y|[Vv]on|[Pp]ar|[Pp]or|[Dd]oor|[Dd]i)\s+\p{Lu}/u.test(l) &&
        !/[.!?]["”’)]?(?:\s|$)/.test(l)) ||
      (l.length <= 300 &&
        /^(?:\(?(?:additional )?(?:reporting|writing|editing|compiled|written|produced) by)\b/i.test(
          l,
        )),
  },
  {
    why: 'source and reference lists: "Source: acme.com", "Read more: …"',
    test: (l) =>
      l.length <= 300 &&
      /^(?:sources?|via|references?|read more|related|more from|see also|further reading|related articles?)\s*:/i.test(
        l,
      ),
  },
  {
    why: 'the company description closing a press release: "Acme is a global provider of kettles…", "Acme is headquartered in Leeds…", "For more information, visit acme.com"',
    test: (l) =>
      (l.length <= 700 &&
        (/^\p{Lu}[\p{L}\p{N}&.'’ -]{0,40} (?:is|are) (?:a|an|the|one of the) (?:world['’]s )?(?:global|leading|international|premier|pioneering)\b/u.test(
          l,
        ) ||
          /^\p{Lu}[\p{L}\p{N}&.'’ -]{0,40} (?:is|are) headquartered in\b/u.test(l))) ||
      (l.length <= 300 &&
        /^for (?:more|further) information\b.{0,200}\b(?:visit|see|go to|contact)\b/i.test(l)),
  },
  {
    why: 'copyright lines: "© 2026 Acme Media", "All rights reserved"',
    test: (l) =>
      l.length <= 200 && (/^(?:©|\(c\)\s|copyright\b)/i.test(l) || /all rights reserved/i.test(l)),
  },
];

/** Why a line is furniture, or null when it is the article's. */
export function boilerplateOf(line: string): string | null {
  const l = line.trim();
  return BOILERPLATE.find((b) => b.test(l))?.why ?? null;
}

/** A wire dateline's credit: "LONDON (Reuters) - ", "(AP) —". */
const DATELINE = /^[\p{Lu}\p{P}\s]{0,60}\([^()\n]{2,40}\)\s*[-–—]\s/u;

/** The brands that are the page's own publisher: its site's, or named in its publisher's name. */
function publishers<T extends { host: string }>(article: MentionArticle, matcher: BrandMatcher<T>) {
  const own = new Set(matcher.occurrences(article.publisher).map((o) => o.brand));
  const site = getDomain(article.url);
  return (brand: T) => own.has(brand) || (site !== null && site === getDomain(brand.host));
}

/**
 * The brands the article mentions, in order of first mention, each with how often and
 * where. A publisher names itself all along its pages ("told Reuters", "Sign up to the
 * Guardian"), so on its own pages a brand is mentioned only when the headline names it:
 * its press release, or its news about itself. A brand whose name is a common word is
 * mentioned only when one place shows the name is meant ("Next steps" at a sentence's
 * start does not), or when the article names one of the words its policy requires.
 */
export function findMentions<T extends { host: string }>(
  article: MentionArticle,
  matcher: BrandMatcher<T>,
): Mention<T>[] {
  const found = new Map<T, Mention<T> & { sure: boolean }>();
  const add = (o: Occurrence<T>, sentence: string) => {
    const m = found.get(o.brand) ?? { brand: o.brand, count: 0, evidence: [], sure: false };
    found.set(o.brand, m);
    m.count += 1;
    m.sure ||= o.sure;
    if (m.evidence.length < EVIDENCE && !m.evidence.includes(sentence)) m.evidence.push(sentence);
  };
  const title = article.title.replace(/\s+/g, ' ').trim();
  const headlined = new Set<T>();
  for (const o of matcher.occurrences(title)) {
    if (o.sure) headlined.add(o.brand);
    add(o, title);
  }

  const text = article.text;
  const dateline = DATELINE.exec(text)?.[0].length ?? 0;
  for (const o of matcher.occurrences(text)) {
    if (o.start < dateline) continue;
    const lineStart = text.lastIndexOf('\n', o.start) + 1;
    const next = text.indexOf('\n', o.end);
    const line = text.slice(lineStart, next < 0 ? text.length : next);
    if (boilerplateOf(line) || inHeadlineList(line, o.start - lineStart)) continue;
    const sentence = sentenceAround(line, o.start - lineStart, o.end - lineStart);
    if (sentence !== line && boilerplateOf(sentence)) continue;
    add(o, sentence);
  }
  const isPublisher = publishers(article, matcher);
  const whole = `${title}\n${text}`;
  return [...found.values()]
    .filter((m) => isMentioned(matcher.policyOf(m.brand), whole, m.sure))
    .filter((m) => headlined.has(m.brand) || !isPublisher(m.brand))
    .map(({ sure: _, ...m }) => m);
}

/** How the article mentions this one brand; null when it does not (see findMentions). */
export function mentionOf(article: MentionArticle, brand: BrandTerms): Mention<BrandTerms> | null {
  return findMentions(article, new BrandMatcher([{ brand, terms: brand }]))[0] ?? null;
}

/**
 * What the article says about the brand (docs/pipeline.md, "Topics and severity"): each
 * sentence that names the brand outside furniture with the sentences either side of it,
 * in the article's order, and the headline when it is about the brand: it names the
 * brand, or the article names the brand twice or more. What a page says about anything
 * else (the sports results beside a sponsor's name, the layoffs of a company that "said
 * on Twitter") does not score it.
 */
export function focusOf(article: { title: string; text: string }, brand: BrandTerms): string {
  const matcher = new BrandMatcher([{ brand: true, terms: brand }]);
  const kept: string[] = [];
  let named = 0;
  for (const paragraph of article.text.split(/\n\s*\n/)) {
    if (boilerplateOf(paragraph)) continue;
    const sentences = splitSentences(paragraph);
    const near = new Set<number>();
    sentences.forEach((s, i) => {
      if (boilerplateOf(s) || matcher.occurrences(s).length === 0) return;
      named += 1;
      for (const j of [i - 1, i, i + 1]) if (j >= 0 && j < sentences.length) near.add(j);
    });
    for (const i of [...near].sort((a, b) => a - b)) kept.push(sentences[i]!);
  }
  const headlined = matcher.occurrences(article.title).length > 0;
  return [...(headlined || named >= 2 ? [article.title] : []), ...kept].join('\n');
}
