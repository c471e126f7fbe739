import type { BrandTerms } from './brand-matcher.js';
import { similarity, type Terms, terms } from './cluster.js';
import { EVENT_TYPES, eventType } from './events.js';
import { judgeSeverity, judgeTopics } from './judge.js';
import { languageName } from './language-name.js';
import { boilerplateOf, focusOf } from './mentions.js';
import { partlyRead } from './partly-read.js';
import {
  byDecision,
  DO_NOT,
  forOrganisation,
  isPlanForResolved,
  NOT_THE_SUBJECT,
  named,
  type Phase,
  PLAYBOOK,
  planOf,
  scheduled,
  withDoNot,
  withDoNotLast,
  withoutDone,
} from './playbook.js';
import { readAs } from './read-as.js';
import { sentencesOf } from './sentences.js';
import { eventSentence, ownsStory, type Situation, situationOf } from './situation.js';
import { spreadOf } from './spread.js';
import {
  maxSeverity,
  orderTopics,
  type Reason,
  raise,
  SEVERITIES,
  SIGNAL_LANGUAGES,
  scoreText,
  topicWeight,
} from './taxonomy.js';
import { type ContextReading, readContext } from './team-context.js';

/**
 * The deterministic advisory generator that works offline. It reads only the sources it
 * is given, so every citation it writes resolves to a source of the story.
 */
export interface ArticleInput {
  url: string;
  /** The page's canonical URL, when known; the URL itself otherwise. */
  canonical_url?: string;
  title: string;
  publisher: string;
  published_at: string;
  text: string;
  type?: string;
  /** ISO 639-1 code of the article's language, when detected. */
  language?: string | null;
  /** WHATWG name of the encoding the page was decoded from, when read from a page. */
  charset?: string | null;
  /** How it speaks of the story's brand, −1 … 1 (set when the story takes it in). */
  sentiment?: number | null;
  /**
   * The page stated no publication date and none came with it: `published_at` is only
   * the day it was read (an article with no date is undated, never "today").
   */
  undated?: boolean;
  /**
   * The page declares itself opinion in its metadata (`article:opinion`, an Opinion
   * section, an OpinionNewsArticle): a column argues, it does not report.
   */
  opinion?: boolean;
  /** Who wrote a post read as it is (a social account, a reviewer); absent for a page. */
  author?: string | null;
}

export interface GeneratedAdvisory {
  severity: 'low' | 'medium' | 'high' | 'critical';
  topics: string[];
  spread: 'contained' | 'growing' | 'widespread' | 'viral';
  assessment: 'informational' | 'opportunity' | 'watch' | 'threat' | 'crisis';
  urgency: 'low' | 'medium' | 'high' | 'immediate';
  executiveSummary: { text: string; cites: string[] }[];
  summaryBasis: string[];
  /** The signals behind severity and topics (never written by a model). */
  reasons: StoryReason[];
  /** How the team's contexts moved assessment and urgency (proposals); null without any. */
  contextEffect?: string | null;
  /** The situation the advisory answers, as the team's contexts leave it (never stored). */
  situation: Situation;
  phases: { title: string; actions: string[] }[];
}

export interface Source extends ArticleInput {
  /** Citation id within the story: s1, s2, … */
  source_key: string;
}

/** The assessments of risk, by severity; `opportunity` stands apart. */
export const ASSESSMENTS = ['informational', 'watch', 'threat', 'crisis'] as const;
export const URGENCIES = ['low', 'medium', 'high', 'immediate'] as const;
/** Items an executive summary holds at most. */
const SUMMARY_ITEMS = 6;
/** Reasons a story keeps at most: enough to say why, few enough to read. */
const MAX_REASONS = 12;

/** Why a story scored as it did: a signal that fired, where, in which source. */
export interface StoryReason extends Reason {
  source: string;
}

/**
 * The story-level scores (docs/pipeline.md): each source's situation for the brand
 * (situation.ts) and the severity it calls for (judge.ts); the story's is the highest of
 * its sources', one step higher once the story is widespread; the topics of all sources;
 * the spread of its publishers. The situation the story is judged by is its gravest
 * source's (the first on a tie), so the plan answers what the severity does.
 */
/** "5 customer reviews on App Store (US), 1 or 2 of 5 stars", or one review's stars. */
function reviewsSay(stars: readonly number[], publisher: string): string {
  const lo = Math.min(...stars);
  const hi = Math.max(...stars);
  const given = lo === hi ? `${lo} of 5 stars` : `${lo} to ${hi} of 5 stars`;
  return stars.length === 1
    ? `A customer review on ${publisher}, ${given}`
    : `${stars.length} customer reviews on ${publisher} say one thing, ${given}`;
}

/** Customers' reviews of one or two stars in one story that make it medium at least. */
const UNHAPPY_CUSTOMERS = 5;

export function assessStory(sources: readonly ArticleInput[], brand?: BrandTerms) {
  const judged = sources.map((s) => {
    const situation = situationOf(s, brand);
    // The risks named where the article speaks of the brand (focusOf).
    const scored = scoreText(brand ? focusOf(s, brand) : `${s.title}\n${s.text}`, s.language);
    const own = brand ? scoreText(situation.named.join('\n'), s.language) : scored;
    return { situation, ...judgeSeverity(situation, scored), topics: judgeTopics(situation, own) };
  });
  const spread = spreadOf(sources);
  const base = maxSeverity(judged.map((j) => j.severity));
  // On a tie, a source where the story is the brand's own outweighs one naming it aside.
  const tied = judged.filter((j) => j.severity === base);
  const gravest = tied.find((j) => ownsStory(j.situation.role)) ?? tied[0]!;
  // Spread raises what is at stake; a brand named in passing stays out of it however far
  // the coverage of something else goes.
  const aside = !judged.some((j) => ownsStory(j.situation.role));
  const spreadSeverity =
    !aside && (spread === 'widespread' || spread === 'viral') ? raise(base) : base;
  // Several customers giving one or two stars for one thing (docs/sources.md, "Several
  // people saying one thing") are a pattern the team must act on, not one person's bad day.
  const unhappy = judged.filter((j) => j.situation.stars !== null && j.situation.stars <= 2);
  const severity =
    unhappy.length >= UNHAPPY_CUSTOMERS && spreadSeverity === 'low' ? 'medium' : spreadSeverity;
  const topics = orderTopics(judged.flatMap((j) => j.topics));
  const reasons = sources
    .flatMap((s, i) =>
      judged[i]!.reasons.map((r) => ({
        ...r,
        source: 'source_key' in s ? (s as Source).source_key : `s${i + 1}`,
      })),
    )
    .slice(0, MAX_REASONS);
  const positive =
    !aside && eventType(gravest.situation.event).polarity === 'favourable' && base === 'low';
  return { severity, topics, spread, positive, reasons, situation: gravest.situation };
}

/** A prompt to the reader, not a statement: "Click here to…", "Sign up…", "Watch:". */
const PROMPT =
  /^(?:click|tap|sign up|subscribe|read more|read next|watch|listen|follow|download|share|see also|related)\b|\bclick here\b/i;
/**
 * A sentence the splitter cut at an abbreviation ("passes a Boeing Co.", "on Monday,
 * Nov."): a fragment, not a sentence to quote.
 */
const CUT_AT_ABBREVIATION =
  /\b(?:Co|Inc|Corp|Ltd|Bros|Mr|Mrs|Ms|Dr|Prof|St|Sen|Rep|Gov|Gen|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|No|vs|U\.S|U\.K)\.$/;
/**
 * A wire dateline opening a sentence, "LONDON (AP) — ", "(Reuters) - ", "DUBAI, United
 * Arab Emirates — ": not the sentence's.
 */
const DATELINE =
  /^(?:[\p{Lu}\p{P}\s]{0,40}\([^()]{2,30}\)\s*[-–—]\s*|\p{Lu}{2,}[\p{Lu}\s.'’-]{0,30}(?:,\s[\p{L}\s.'’-]{2,30})?\s[–—]\s)/u;
/**
 * A sentence that leans on the one before it: a pronoun for someone named earlier ("His …",
 * "That, Audi says …") or a reply to it ("Yes, I mean …"). Quoted alone it reads as a
 * fragment of an argument the summary does not show.
 */
const LEANS_ON_BEFORE =
  /^["“]?(?:(?:yes|no|well|i mean),?\s|(?:he|she|they|his|her|their|that|those)\b)/i;
/**
 * A connective opening a sentence, which it does without: "Then, last week, Taylor Swift
 * posted…" is quoted from "Last week". (A pronoun opening one leans on the sentence before
 * and is not quoted at all: LEANS_ON_BEFORE.)
 */
const CONNECTIVE =
  /^(?:then|however|but|so|and|also|still|yet|meanwhile|instead|moreover|furthermore|besides|indeed|thus|therefore),?\s+(?=\S)/i;

/** A sentence as the summary quotes it: without a wire dateline or an opening connective. */
const tidy = (sentence: string) =>
  sentence
    .replace(DATELINE, '')
    .replace(CONNECTIVE, '')
    .replace(/^\p{Ll}/u, (c) => c.toUpperCase());
/** A whole sentence: starts as one, ends as one. */
const WHOLE = /^["“‘(]?[\p{Lu}\p{N}][\s\S]*[.!?…]["”’)]?$/u;

/**
 * Sentences of an article worth quoting: whole sentences that say something (30 to 400
 * characters), none of the page's furniture (credits, share lines) and no prompts. With
 * a brand, those the article says about it (focusOf) come first.
 */
function quotable(article: ArticleInput, brand?: BrandTerms): string[] {
  const text = brand
    ? `${focusOf({ title: '', text: article.text }, brand)}\n${article.text}`
    : article.text;
  const seen = new Set<string>();
  return sentencesOf(text)
    .map(tidy)
    .filter((s) => {
      if (seen.has(s)) return false;
      seen.add(s);
      return (
        s.length >= 30 &&
        s.length <= 400 &&
        WHOLE.test(s) &&
        !CUT_AT_ABBREVIATION.test(s) &&
        !PROMPT.test(s) &&
        !LEANS_ON_BEFORE.test(s) &&
        !boilerplateOf(s)
      );
    });
}

/**
 * How much a sentence tells: an event of any kind, a figure, the people it touches; less
 * when it tells the past ("after reaching a settlement with the attorney general last
 * year"): background comes after the news.
 */
function substance(sentence: string): number {
  return (
    (EVENT_TYPES.some((e) => e.phrases?.test(sentence)) ? 2 : 0) +
    (/\d/.test(sentence) ? 1 : 0) +
    (AFFECTED.test(sentence) ? 1 : 0) -
    (BACKGROUND.test(sentence) ? 3 : 0)
  );
}

/** Words that put a sentence's news in the past: background to the story, not the story. */
/**
 * A sentence naming the brand in a list of names ("names like Chime, Varo, SoFi, Current"):
 * it says the brand exists, not what the piece says of it; taken last for what happened.
 */
const LISTED = /(?:\p{Lu}[\p{L}\d.&'’-]*,\s+){2,}/u;

const BACKGROUND =
  /\b(?:last year|(?:a|one|two|three|four|five|several|many) (?:years|decades) ago|earlier this (?:year|decade)|previously|in the past|back in|has long|for years|since (?:19|20)\d\d)\b/i;

/**
 * What the reader should know of how the sources were read, one line at most for the
 * story: the first source's page read only in part (a paywall), or one in a language the
 * built-in reader does not assess (its risks and tone are not read): a person reads it
 * before acting. Said of the first source only: the others add to what it says.
 */
function readingNotes(sources: readonly Source[]): Item[] {
  const first = sources[0]!;
  const limit = readingLimit(first);
  if (limit?.language) {
    return [
      {
        text: `${first.publisher}’s article is in ${limit.language}, which the built-in reader does not assess: have it read before acting.`,
        cites: [first.source_key],
      },
    ];
  }
  if (limit?.words) {
    return [
      {
        text: `Only ${limit.words} words of ${first.publisher}’s article could be read (it may be behind a paywall): read it in full before acting.`,
        cites: [first.source_key],
      },
    ];
  }
  return [];
}

/**
 * How far the built-in reader could read a source: in a language it does not assess (its
 * English name), or only part of a page it fetched (the words read, partlyRead); null when
 * in full.
 */
function readingLimit(source: Source): { language?: string; words?: number } | null {
  const language = source.language;
  if (language && !(SIGNAL_LANGUAGES as readonly string[]).includes(language)) {
    return { language: languageName(language) };
  }
  const words = partlyRead(source);
  return words !== null ? { words } : null;
}

/** The plan with reading the article in full as its first step, when it could not be. */
function readFirst(plan: readonly Phase[], source: Source | undefined): Phase[] {
  const limit = source ? readingLimit(source) : null;
  if (!limit || plan.length === 0 || plan[0]!.title === DO_NOT) return [...plan];
  const step = limit.language
    ? `Have someone who reads ${limit.language} read the article in full before anything else`
    : 'Get the full article (the service could read only part of it) and read it before anything else';
  // What the brand is to a page not read cannot be said yet ("not the subject" of a
  // Japanese review of its own product was wrong): the reason waits for the reading.
  const unread = plan.map((p) =>
    p.title === DO_NOT
      ? { ...p, actions: p.actions.map((a) => (a === NOT_THE_SUBJECT ? NOT_YET_READ : a)) }
      : p,
  );
  return [{ ...unread[0]!, actions: [step, ...unread[0]!.actions] }, ...unread.slice(1)];
}

const NOT_YET_READ = 'Do not issue a statement before the article has been read in full';

/** Summary items at least this similar say the same thing: one item, citing every source. */
const SAME_THING = 0.5;
/** A sentence this similar to the headline restates it. */
const RESTATES = 0.8;

/** "A", "A and B", "A, B and C" */
const list = (names: string[]) =>
  names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;

/**
 * Who a sentence says is affected: the people, or a count of things. English, French,
 * German and Spanish, as the signal lists.
 */
const AFFECTED = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${[
    'customers?|users?|consumers?|passengers?|patients?|employees?|staff|workers?|drivers?',
    'residents?|shareholders?|investors?|owners?|buyers?|children|famil(?:y|ies)|subscribers?',
    'members?|clients?|households?|account ?holders?|travell?ers?|guests?|victims?',
    '\\d[\\d,. ]*(?:million |billion |thousand )?(?:people|units|vehicles|cars|products|devices|accounts|records|homes|jobs|flights)',
    'utilisateurs|consommateurs|passagers|salariés|employés|habitants|actionnaires|familles|abonnés',
    'Kunden|Nutzer|Verbraucher|Fahrgäste|Passagiere|Patienten|Mitarbeiter|Beschäftigte|Anwohner|Aktionäre|Familien|Abonnenten',
    'clientes|usuarios|consumidores|pasajeros|pacientes|empleados|trabajadores|residentes|accionistas|familias|suscriptores',
  ].join('|')})(?![\\p{L}\\p{N}])`,
  'iu',
);

interface Item {
  text: string;
  cites: string[];
  words?: Terms;
}

/**
 * The executive summary of a story, drawn from its sources only (docs/pipeline.md, "The
 * advisory"), in distinct sentences: what happened (the sentence the situation's event was
 * read from; the headline only when no sentence says it), who is affected (the harm read,
 * or a sentence naming the people or the count), what the brand has already said, what is
 * at stake (the sentence where its weightiest signal fired), then the leading sentences of
 * each source in turn, and last how the sources were read and, with several publishers,
 * who covers it. A sentence that says again what an
 * item says cites its source on that item instead: nothing is said twice.
 */
function summarize(
  sources: readonly Source[],
  brand: BrandTerms | undefined,
  reasons: readonly StoryReason[],
  situation: Situation,
) {
  const first = sources[0]!;
  const headline = terms({ title: '', text: first.title });
  const everyQuotable = sources.map((s) => quotable(s, brand));
  const quotes = everyQuotable.map((q) => q.slice(0, 8));
  const items: Item[] = [];
  const notes = readingNotes(sources);
  const names = [...new Set(sources.map((s) => s.publisher))];
  /** Adds a quoted sentence unless it restates the headline or an item; true if it did. */
  const quote = (sentence: string, key: string): boolean => {
    const words = terms({ title: '', text: sentence });
    if (similarity(headline, words) >= RESTATES) return false;
    const same = items.find((it) => it.words && similarity(it.words, words) >= SAME_THING);
    if (same) {
      if (!same.cites.includes(key)) same.cites.push(key);
      return false;
    }
    // The last places are the reading notes' and the reach line's.
    const tail = notes.length + (names.length > 1 ? 1 : 0);
    if (items.length >= SUMMARY_ITEMS - tail) return false;
    items.push({ text: sentence, cites: [key], words });
    // Quoted once from its source; another source saying it still cites it, further on.
    const own = quotes[sources.findIndex((s) => s.source_key === key)]!;
    if (own.includes(sentence)) own.splice(own.indexOf(sentence), 1);
    return true;
  };

  // Quotes a sentence of the situation where a source holds it as quotable.
  const quoteFact = (said: string | null | undefined): boolean => {
    const sentence = said ? tidy(said) : undefined;
    if (!sentence) return false;
    const i = quotes.findIndex((q) => q.includes(sentence));
    return i >= 0 && quote(sentence, sources[i]!.source_key);
  };
  const adverse = eventType(situation.event).polarity === 'adverse';
  const aside = !ownsStory(situation.role);
  if (aside && brand) {
    // The brand only named: that it is, where, and the sentence naming it; "in passing"
    // only of a page read in full, in a language the reader assesses.
    const how = situation.role === 'source' ? 'cites' : 'names';
    const as = situation.role === 'source' ? ' as a source' : notes.length > 0 ? '' : ' in passing';
    items.push({
      text: `${first.publisher} ${how} ${brand.name}${as} in “${first.title.replace(/[.!?]$/, '')}”.`,
      cites: [first.source_key],
    });
    const naming = quotes[0]!.find((q) => situation.named.includes(q));
    if (naming) quote(naming, first.source_key);
  } else {
    // What happened, in a whole sentence: the one the event was read from, or when that
    // was the headline, the first of the brand's sentences reporting the same event. The
    // headline is the story's title already: it stands here only when no sentence says it.
    const phrases = eventType(situation.event).phrases;
    const reporting = phrases
      ? situation.named.filter((n) => n !== situation.onRecord && phrases.test(n))
      : [];
    // Failing those, the first sentence of the article that names the brand (its lede),
    // news before background ("Acme has long made kettles in Leeds").
    const lede = situation.named.slice(situation.headlined ? 1 : 0);
    // Customers' reviews say, they do not report: how many, where, and what.
    const reviews = sources.filter((s) => situationOf(s, brand).stars !== null);
    const headlineSays = () =>
      items.unshift({
        text:
          situation.stars !== null
            ? `${reviewsSay(
                reviews.map((s) => situationOf(s, brand).stars!),
                first.publisher,
              )}: “${first.title.replace(/^.*? review: /, '')}”.`
            : `${first.publisher} reports: ${first.title}.`.replace(/([.!?])\.$/, '$1'),
        cites: reviews.length > 1 ? reviews.map((s) => s.source_key) : [first.source_key],
      });
    // Told only in the headline's words (its sentence a near copy of the title): the
    // headline says it, not the next line of the lede ("Acme said the line will launch…"
    // leading an award's summary, the fourteenth read of the demo).
    // Else the lede: news before background, and a sentence saying something of the
    // brand before one listing it among others.
    // (Without an event, the event's sentence is only the first naming the brand.)
    const eventful = situation.event !== 'none' && situation.event !== 'profile';
    if (!(eventful && quoteFact(eventSentence(situation))) && !reporting.some(quoteFact)) {
      const repeated = reporting.some((n) => n !== situation.named[0] || !situation.headlined);
      const news = lede.filter((n) => !BACKGROUND.test(n));
      const told =
        !repeated &&
        (news.filter((n) => !LISTED.test(n)).some(quoteFact) ||
          news.some(quoteFact) ||
          lede.some(quoteFact));
      if (!told) headlineSays();
    }
    // What the situation reads, when it says more than the quoted sentence: who acts, and
    // how far the coverage stands behind it.
    const read = brand ? readAs(situation, brand.name) : null;
    if (read) items.unshift({ text: read, cites: [first.source_key] });
    // The brand's own page is its own word, said first: the team follows its pickup.
    if (situation.ownSite && brand) {
      items.unshift({
        text: `This is ${brand.name}’s own announcement, published on its site (${first.publisher}).`,
        cites: [first.source_key],
      });
    }
    // Who is affected, by something adverse: the harm the situation reads, else the first
    // quotable sentence, source by source, that names the people or a count; and what the
    // brand has already said, the position a response starts from. Those touched come
    // first when counted ("some 375,000 people"); otherwise the brand's own line does (a
    // consultant's read: it stood fourth, behind a line on the brand's shareholder).
    const harmed = situation.facts.filter((f) => f.fact === 'harm').map((f) => f.sentence);
    const touched = quotes.map((q) => q.find((sentence) => AFFECTED.test(sentence)));
    if (!/\d/.test(touched.find((t) => t !== undefined) ?? '')) quoteFact(situation.onRecord);
    if (adverse && !harmed.some(quoteFact)) {
      touched.some((t, i) => t !== undefined && quote(t, sources[i]!.source_key));
    }
    quoteFact(situation.onRecord);
  }
  // What is at stake, when it is a sentence to quote: the harm the situation reads
  // (deaths, injuries, data exposed), then the sentence reporting an adverse event, then
  // where the weightiest signal fired.
  const rank = (r: StoryReason) =>
    r.topic === 'harm' ? 100 : r.topic === 'event' && adverse ? 50 : topicWeight(r.topic);
  const stakes = [...reasons].sort((a, b) => rank(b) - rank(a));
  for (const r of stakes) {
    const i = sources.findIndex((s) => s.source_key === r.source);
    // Wherever it stands in the article: the risk is often told late ("there's a security
    // risk associated with business accounts, particularly for minors").
    if (i >= 0 && everyQuotable[i]!.includes(r.sentence) && quote(r.sentence, r.source)) break;
  }
  // Then the leading sentences: two of the first source, one of each other, those that
  // tell something first (an event, a figure, who is touched) over a narrator's aside
  // ("Respawn just has a thing for creating cordial robots").
  for (const [i, q] of quotes.entries()) {
    const scored = q.map((sentence) => ({ sentence, score: substance(sentence) }));
    quotes[i] = scored.sort((a, b) => b.score - a.score).map((x) => x.sentence);
  }
  const taken = sources.map(
    (_, i) => items.filter((it) => it.words && it.cites[0] === sources[i]!.source_key).length,
  );
  for (let round = 0; round < 2; round++) {
    sources.forEach((source, i) => {
      while (taken[i]! < (i === 0 ? 2 : 1) && quotes[i]!.length > 0) {
        if (quote(quotes[i]!.shift()!, source.source_key)) {
          taken[i]! += 1;
          return;
        }
      }
    });
  }
  // How it is spreading, when more than one publisher reports it (last: what happened
  // comes first; one source is the story's spread, "contained", already).
  const shown = names.length > 4 ? [...names.slice(0, 3), `${names.length - 3} more`] : names;
  items.push(...notes);
  if (names.length > 1) {
    items.push({
      text: `${names.length} publishers report it: ${list(shown)}.`,
      cites: sources.map((s) => s.source_key),
    });
  }
  const order = (key: string) => sources.findIndex((s) => s.source_key === key);
  return items.map(({ text, cites }) => ({
    text,
    cites: cites.sort((a, b) => order(a) - order(b)),
  }));
}

/**
 * The built-in advisory of a story from its sources (one for a new story) and the
 * contexts its team has given, oldest first (a proposal's; none for a new story): the
 * situation and the scores from the sources; each context moves assessment and urgency
 * a step, down when it eases the story, up when it reveals worse, two steps at most; a
 * denial or a fix the team reports becomes the situation's status, its constraints the
 * plan's "Do not", and the steps it has taken leave the plan; the plan gains the phase the
 * latest context calls for. The
 * contexts are private: they move the judgement, never the advisory's words.
 */
export function generateAdvisory(
  sources: readonly Source[],
  brand?: BrandTerms,
  contexts: readonly string[] = [],
): GeneratedAdvisory {
  const story = assessStory(sources, brand);
  const { severity, topics, spread, positive, reasons } = story;
  const readings = contexts.map((c) => readContext(c, story, sources[0]?.language));
  const shift = Math.max(
    -2,
    Math.min(
      2,
      readings.reduce((sum, r) => sum + r.direction, 0),
    ),
  );
  const situation = withContexts(story.situation, readings);
  // The team's word eases a story; it does not unpublish the coverage: a high or critical
  // story stays under watch, whatever the team says of it, and so does a medium one the
  // team neither denies nor reports over ("severance was agreed" leaves the layoffs news)
  // or one a wire or several titles carry ("not about us" does not quiet the BBC).
  const rank = SEVERITIES.indexOf(severity);
  // A shutoff by decision is over only until the next one ("extreme fire weather").
  const recurring = byDecision(story.situation);
  const settled = !recurring && readings.some((r) => r.denies || r.resolved);
  const widelyCarried = spread !== 'contained';
  const floor = shift < 0 && (rank >= 2 || (rank === 1 && (!settled || widelyCarried))) ? 1 : 0;
  const level = Math.max(floor, Math.min(3, rank + shift));
  const executiveSummary = summarize(sources, brand, reasons, story.situation);
  // Steps the team says it has taken are not asked for again.
  const plan = readFirst(
    forOrganisation(
      withoutDone(
        planOf(
          situation,
          topics,
          readings.flatMap((r) => r.constraints),
          severity,
        ),
        readings.flatMap((r) => r.done),
      ),
      brand?.name ?? '',
    ),
    sources[0],
  );
  const latest = readings.at(-1);
  // A viral story cannot wait, whatever its severity; nor can a live problem with a date
  // on it ("layoffs this week", "shutoff begins today").
  const soon = spread === 'viral' || (level >= 1 && imminent(situation, sources[0]));
  const urgency = URGENCIES[Math.min(3, level + (soon ? 1 : 0))]!;
  return {
    severity,
    topics,
    spread,
    assessment: positive ? 'opportunity' : ASSESSMENTS[level]!,
    urgency,
    executiveSummary,
    summaryBasis: [...new Set(executiveSummary.flatMap((i) => i.cites))],
    phases: named(
      scheduled(latest ? withContextPhase(plan, latest, situation, topics) : plan, urgency),
      brand?.name ?? '',
    ),
    reasons,
    situation,
    // Said only when the latest context moved the judgement (a diff's other moves come
    // from the coverage).
    contextEffect:
      latest && latest.direction !== 0 && shift !== 0
        ? floor > 0 && rank + shift < floor
          ? 'the team’s context eases the story, but the coverage still reports it: it stays under watch'
          : effectOf(readings, shift)
        : null,
  };
}

/** Words that put a problem's next turn within a day or two of the coverage. */
const SOON =
  /\b(?:begins|starts|under ?way|today|tonight|tomorrow|this (?:morning|afternoon|evening|week)|within (?:hours|the hour|a day|24 hours)|by (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|the end of the (?:day|week))|deadline)\b/i;

/**
 * Whether an adverse event still live (not denied, not over) is dated within a day or two
 * by the first source's headline or the sentence telling it: the response runs against
 * that clock, so the urgency is a step higher. Read at detection, when "today" is today.
 */
function imminent(situation: Situation, first: Source | undefined): boolean {
  if (!first || !ownsStory(situation.role)) return false;
  if (eventType(situation.event).polarity !== 'adverse') return false;
  if (situation.status === 'denied' || situation.status === 'resolved') return false;
  return SOON.test(first.title) || SOON.test(eventSentence(situation));
}

/** The situation as the team's contexts correct it: denied, or over, when they say so. */
function withContexts(situation: Situation, readings: readonly ContextReading[]): Situation {
  if (readings.some((r) => r.direction > 0)) return situation;
  // Over is the more specific claim: "resolved on Monday; no injuries" says it happened.
  if (readings.some((r) => r.resolved)) return { ...situation, status: 'resolved' };
  // A row the coverage already reports over stays over: the team saying it was never
  // theirs does not reopen it (a consultant's read: "do not reopen the row" was lost).
  if (readings.some((r) => r.denies) && situation.status !== 'resolved')
    return { ...situation, status: 'denied' };
  return situation;
}

/**
 * The plan with the phase the latest context calls for (contextPhase), second; worse news
 * puts the first step it calls for (worseNews) first: counsel before any public word on a
 * regulator's inquiry. The "Do not" list stays last, and a plan that would run past six
 * phases gives up its last ordinary one (monitoring) for it.
 */
function withContextPhase(
  plan: readonly Phase[],
  latest: ContextReading,
  situation: Situation,
  topics: readonly string[],
): Phase[] {
  // The team's account of it being less than reported is its own until checked ("nobody
  // was hurt", "fixed within hours", "voluntary"): said in public before, it is the next
  // story if the coverage holds. Worded so a share page gives nothing of the context away.
  const checked = easing(latest) ? withDoNot(plan, UNCHECKED) : [...plan];
  // A problem the plan already treats as over needs no phase saying so again.
  if (latest.resolved && isPlanForResolved(situation)) return checked;
  // Worse news puts its first step first; the team works from its context next, before
  // anyone answers in public (a consultant's read found the team briefed only after the
  // public response).
  const worse = worseNews(checked, latest);
  const phases = worse ? [worse, ...checked] : checked;
  phases.splice(
    Math.min(1, phases.filter((p) => p.title !== DO_NOT).length),
    0,
    contextPhase(latest, topics),
  );
  return withDoNotLast(phases);
}

/** A context that says the story is less than the coverage reports. */
const easing = (reading: ContextReading) =>
  reading.direction < 0 || reading.resolved || reading.denies;
const UNCHECKED =
  'Do not make a claim in public the brand cannot yet show: check each against the coverage and the records first';

/**
 * What the team's latest context calls for: saying it is fixed when it reports a fix (to
 * whoever asks: a release about a closed problem puts it back in the news); settling with
 * the party it says is responsible (a public correction would blame a partner); correcting
 * the record only when it says the coverage is wrong (mitigating facts are no correction,
 * and the correction waits for the review: sent before it, it would be the harm);
 * otherwise briefing the team, investor relations and legal first on a financial story.
 */
function contextPhase(latest: ContextReading, topics: readonly string[]): Phase {
  if (latest.resolved) {
    return {
      title: 'Say it is fixed',
      owner: 'Press office',
      actions: [
        'If customers or publishers ask, say what was fixed and when, once the owning team confirms it and it matches what the brand has already said in public',
        'Start no new coverage of a problem that is over',
      ],
    };
  }
  if (latest.denies && latest.constraints.includes('other-party')) {
    return {
      title: 'Settle it with the party concerned',
      owner: 'Legal',
      actions: [
        'Agree privately with the party concerned who says what in public',
        // "We did not make that decision" pins it on the other party in public and reopens
        // the row (the twelfth read): nothing new is said before the two agree.
        'If publishers ask, hold the line already on record, and say nothing new until the brand and the party concerned have agreed it',
      ],
    };
  }
  if (latest.denies) {
    return {
      title: 'Correct the record',
      owner: 'Communications',
      actions: [
        'If the review shows the coverage is wrong, send the publishers the correction with the evidence',
        'Once it is confirmed, publish the clarification on owned channels',
      ],
    };
  }
  // What the team knows of results may be inside information.
  // Embargoed figures are kept as tightly: investor relations and legal, nobody else.
  const financial = topics.includes('financial') || latest.constraints.includes('embargo');
  return {
    title: 'Brief the team on the new context',
    owner: financial ? 'Investor relations' : 'Communications',
    // Due with the phase before it: briefing the team on what it knows takes no rung of
    // its own, so the phases after it keep their deadlines.
    together: true,
    // The context is the team's own account: it is checked against the coverage before it
    // is relied on, and spokespeople get an approved line, never the context itself (a
    // consultant's read: "voluntary" in a spokesperson's mouth, against coverage calling the
    // terms coercive, reads as spin).
    actions: [
      financial
        ? 'Share the context with investor relations and legal first: they decide what may be said, and to whom'
        : 'Share the context, marked internal, with those who need it; spokespeople get only the approved line',
      'Check it against what the coverage reports, and settle any difference before relying on it',
      // More to come ("a second complaint is coming this week"): the line is ready first.
      ...(latest.direction > 0
        ? ['Prepare, with legal, the line for what the team expects next, before it is public']
        : []),
      'Check the plan’s open steps against it',
    ],
  };
}

/** Risks whose worse news calls for its own first step (a complaint's does not). */
const INCIDENT_TOPICS: ReadonlySet<string> = new Set([
  'legal-regulatory',
  'data-privacy',
  'security',
  'product-safety',
  'environment',
]);

/**
 * The first step the worse news the team reports calls for, when the plan has no such
 * step yet: a regulator's inquiry or a lawsuit coming brings counsel in ("Brief counsel"),
 * whatever the coverage was about.
 */
function worseNews(plan: readonly Phase[], latest: ContextReading): Phase | undefined {
  if (latest.direction <= 0) return undefined;
  for (const topic of latest.worse.filter((t) => INCIDENT_TOPICS.has(t))) {
    const first = PLAYBOOK[topic]?.[0];
    if (first && !plan.some((p) => p.title === first.title)) return first;
  }
  return undefined;
}

/** Why the contexts moved the judgement, in words of the model, never of the context. */
function effectOf(readings: readonly ContextReading[], shift: number): string {
  if (shift > 0) return 'the team’s context reports worse than the coverage';
  if (readings.some((r) => r.resolved)) return 'the team’s context says the problem is resolved';
  if (readings.some((r) => r.denies)) return 'the team’s context denies what the coverage reports';
  return 'the team’s context says the coverage overstates the harm';
}

/** The one source of an article that starts a story. */
export const firstSource = (article: ArticleInput): Source => ({ ...article, source_key: 's1' });
