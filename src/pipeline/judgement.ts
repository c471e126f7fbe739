import type { BrandTerms } from './brand-matcher.js';
import type { ArticleInput } from './builtin-advisor.js';
import { eventType } from './events.js';
import { languageOf } from './language.js';
import { partlyRead } from './partly-read.js';
import { sentimentOf } from './sentiment.js';
import { eventSentence, ownsStory, type Situation, situationOf } from './situation.js';

/**
 * What the pipeline tells of an article for a brand's story, once, before it is stored:
 * its language (kept when it came with one) and how it speaks of the brand.
 */
export function withJudgement(article: ArticleInput, brand: BrandTerms) {
  const language = languageOf(article);
  // A page read only in part is not scored: a tone read from its first lines is a guess.
  const sentiment =
    article.sentiment !== undefined
      ? article.sentiment
      : partlyRead(article) !== null
        ? null
        : sentimentTowards(situationOf({ ...article, language }, brand), language);
  return { ...article, language, sentiment };
}

const RESULTS_DOWN =
  /\b(?:miss(?:es|ed)?|plunge[sd]?|plunging|falling|dropping|sliding|slid|plummet(?:s|ed)?|slump(?:s|ed)?|f[ae]ll|falls|drop(?:s|ped)?|cut(?:s)? (?:its )?(?:forecast|outlook|guidance)|loss(?:es)?|warn(?:s|ed)?|tumble[sd]?|sink(?:s)?|sank)\b/i;
const RESULTS_UP =
  /\b(?:beat(?:s)?|record|surge[sd]?|soar(?:s|ed)?|jump(?:s|ed)?|r[oi]se|rises|climb(?:s|ed)?|raise[sd]? (?:its )?(?:forecast|outlook|guidance)|tops?|topped)\b/i;

/**
 * The tone of the brand's sentences, the headline weighing as much as all the others: a
 * headline is the piece's verdict ("AT&T just declared war on an open internet"), which a
 * long body of neutral sentences would otherwise drown.
 */
function toneOf(situation: Situation, language: string | null | undefined): number | null {
  const [first, ...rest] = situation.named;
  if (!situation.headlined || rest.length === 0) {
    return sentimentOf(situation.named.join('\n'), language);
  }
  const headline = sentimentOf(first!, language);
  const body = sentimentOf(rest.join('\n'), language);
  if (headline === null || body === null) return headline ?? body;
  return Math.round(((headline + body) / 2) * 100) / 100;
}

/** The least a favourable event reads (or the most an adverse one does), in −1 … 1. */
const EVENT_TONE = 0.3;

/**
 * How the coverage speaks of the brand, −1 … 1 (docs/pipeline.md, "Sentiment"): wink-nlp's
 * sentiment of the sentences naming the brand, read with the situation, because a word
 * list cannot tell a recall reported in calm words from good news: a favourable event
 * (award, launch, deal, partnership) reads at least +0.3, an adverse one still alleged or
 * confirmed at most −0.3, and a brand only named in passing or as a source is neutral
 * unless its sentences are strongly coloured (|s| ≥ 0.5). Null for other languages than
 * English, as sentimentOf.
 */
export function sentimentTowards(situation: Situation, language: string | null | undefined) {
  const read = toneOf(situation, language);
  if (read === null) return null;
  // A result is the news whatever the words around it (a win read +0.3 at least).
  if (situation.outcome === 'won') return Math.max(read, EVENT_TONE);
  if (situation.outcome === 'lost') return Math.min(read, -EVENT_TONE);
  const own = ownsStory(situation.role);
  const polarity = eventType(situation.event).polarity;
  if (!own) return Math.abs(read) < 0.5 ? 0 : read;
  // An opinion piece argues about the news: its own tone decides ("the merger bodes ill").
  if (polarity === 'favourable') return situation.opinion ? read : Math.max(read, EVENT_TONE);
  if (situation.event === 'earnings') {
    // Results read by their direction: "sales miss, shares plunge" is bad news however
    // calmly told.
    const said = eventSentence(situation);
    if (RESULTS_DOWN.test(said)) return Math.min(read, -EVENT_TONE);
    if (RESULTS_UP.test(said)) return Math.max(read, EVENT_TONE);
  }
  // Denied is still an accusation in the news; only a problem over reads by its words.
  if (polarity === 'adverse' && situation.status !== 'resolved') return Math.min(read, -EVENT_TONE);
  return read;
}
