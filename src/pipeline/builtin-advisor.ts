import type { BrandTerms } from './brand-matcher.js';
import { similarity, type Terms, terms } from './cluster.js';
import { boilerplateOf, focusOf } from './mentions.js';
import { planFor } from './playbook.js';
import { sentencesOf } from './sentences.js';
import { spreadOf } from './spread.js';
import { maxSeverity, orderTopics, type Reason, raise, SEVERITIES, scoreText } from './taxonomy.js';

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
  phases: { title: string; actions: string[] }[];
}

export interface Source extends ArticleInput {
  /** Citation id within the story: s1, s2, … */
  source_key: string;
}

const ASSESSMENTS = ['informational', 'watch', 'threat', 'crisis'] as const;
const URGENCIES = ['low', 'medium', 'high', 'immediate'] as const;
/** Items an executive summary holds at most. */
const SUMMARY_ITEMS = 6;
/** Reasons a story keeps at most: enough to say why, few enough to read. */
const MAX_REASONS = 12;

/** Why a story scored as it did: a signal that fired, where, in which source. */
export interface StoryReason extends Reason {
  source: string;
}

/**
 * The story-level scores (docs/pipeline.md): the highest severity of its sources, one
 * step higher once the story is widespread; the topics of all sources; the spread of
 * its publishers.
 */
export function assessStory(sources: readonly ArticleInput[], brand?: BrandTerms) {
  const scored = sources.map((s) =>
    scoreText(brand ? focusOf(s, brand) : `${s.title}\n${s.text}`, s.language),
  );
  const spread = spreadOf(sources);
  const base = maxSeverity(scored.map((s) => s.severity));
  const severity = spread === 'widespread' || spread === 'viral' ? raise(base) : base;
  const topics = orderTopics(scored.flatMap((s) => s.topics));
  const reasons = sources
    .flatMap((s, i) =>
      scored[i]!.reasons.map((r) => ({
        ...r,
        source: 'source_key' in s ? (s as Source).source_key : `s${i + 1}`,
      })),
    )
    .slice(0, MAX_REASONS);
  return { severity, topics, spread, positive: scored.every((s) => s.positive), reasons };
}

/** A prompt to the reader, not a statement: "Click here to…", "Sign up…", "Watch:". */
const PROMPT =
  /^(?:click|tap|sign up|subscribe|read more|read next|watch|listen|follow|download|share|see also|related)\b|\bclick here\b/i;
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
  return sentencesOf(text).filter((s) => {
    if (seen.has(s)) return false;
    seen.add(s);
    return (
      s.length >= 30 && s.length <= 400 && WHOLE.test(s) && !PROMPT.test(s) && !boilerplateOf(s)
    );
  });
}

/** Summary items at least this similar say the same thing: one item, citing every source. */
const SAME_THING = 0.5;
/** A sentence this similar to the headline restates it. */
const RESTATES = 0.8;

/** "A", "A and B", "A, B and C" */
const list = (names: string[]) =>
  names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;

/**
 * The executive summary of a story, drawn from its sources only: what the first source
 * reports, who else covers it, then the leading sentences of each source in turn; a
 * sentence several sources share (nearly the same words) cites all of them.
 */
function summarize(sources: readonly Source[], brand?: BrandTerms) {
  const first = sources[0]!;
  const items: { text: string; cites: string[]; words?: Terms }[] = [
    {
      text: `${first.publisher} reports: ${first.title}.`.replace(/([.!?])\.$/, '$1'),
      cites: [first.source_key],
    },
  ];
  // A sentence that only restates the headline adds nothing.
  const headline = terms({ title: '', text: first.title });
  const others = sources.slice(1);
  if (others.length > 0) {
    const names = [...new Set(others.map((s) => s.publisher))];
    const shown = names.length > 4 ? [...names.slice(0, 3), `${names.length - 3} more`] : names;
    items.push({
      text: `The story is also covered by ${list(shown)}.`,
      cites: others.map((s) => s.source_key),
    });
  }
  // Up to two sentences from the first source, then one from each other source; a
  // sentence that says again what an item says cites its source there instead (maximal
  // marginal relevance with a hard bar: nothing is said twice).
  const quotes = sources.map((s) => quotable(s, brand).slice(0, 8));
  const taken = sources.map(() => 0);
  for (let round = 0; round < 2; round++) {
    sources.forEach((source, i) => {
      if (taken[i]! >= (i === 0 ? 2 : 1)) return;
      for (let sentence = quotes[i]!.shift(); sentence; sentence = quotes[i]!.shift()) {
        const words = terms({ title: '', text: sentence });
        if (similarity(headline, words) >= RESTATES) continue;
        const same = items.find((it) => it.words && similarity(it.words, words) >= SAME_THING);
        // Its own point again: look further in the same source.
        if (same?.cites.includes(source.source_key)) continue;
        if (same) same.cites.push(source.source_key);
        else if (items.length < SUMMARY_ITEMS) {
          items.push({ text: sentence, cites: [source.source_key], words });
          taken[i]! += 1;
        }
        return;
      }
    });
  }
  return items.map(({ text, cites }) => ({ text, cites }));
}

/**
 * The built-in advisory of a story from its sources (one for a new story): scores,
 * assessment and urgency from severity and spread, a summary citing the sources, and
 * the playbook's plan for its riskiest topic.
 */
export function generateAdvisory(
  sources: readonly Source[],
  brand?: BrandTerms,
): GeneratedAdvisory {
  const { severity, topics, spread, positive, reasons } = assessStory(sources, brand);
  const level = SEVERITIES.indexOf(severity);
  const executiveSummary = summarize(sources, brand);
  return {
    severity,
    topics,
    spread,
    assessment: positive ? 'opportunity' : ASSESSMENTS[level]!,
    // A viral story cannot wait, whatever its severity.
    urgency: URGENCIES[Math.min(3, level + (spread === 'viral' ? 1 : 0))]!,
    executiveSummary,
    summaryBasis: [...new Set(executiveSummary.flatMap((i) => i.cites))],
    phases: planFor(topics),
    reasons,
  };
}

/** The one source of an article that starts a story. */
export const firstSource = (article: ArticleInput): Source => ({ ...article, source_key: 's1' });
