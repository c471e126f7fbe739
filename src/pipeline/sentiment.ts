import model from 'wink-eng-lite-web-model';
import winkNLP, { type WinkMethods } from 'wink-nlp';

/**
 * How the coverage speaks of the brand, from −1 (hostile) to 1 (glowing), by wink-nlp's
 * sentiment over its English model (docs/pipeline.md, "Sentiment"). Read on what the
 * article says about the brand (focusOf), so a warm profile of someone else beside a
 * line on the brand does not count. English only: no maintained library scores French or
 * German text as well, and a wrong number is worse than none, so other languages are
 * null.
 */
let nlp: WinkMethods | undefined;

/** The model loads on first use (about 0.1 s): commands that never score do not pay it. */
const reader = () => {
  nlp ??= winkNLP(model);
  return nlp;
};

/** The sentiment of a text in −1 … 1, two decimals; null when it is not English. */
export function sentimentOf(text: string, language: string | null | undefined): number | null {
  if (language !== 'en' || !text.trim()) return null;
  const n = reader();
  const score = n.readDoc(text).out(n.its.sentiment) as number;
  return Math.round(Math.max(-1, Math.min(1, score)) * 100) / 100;
}

/** A story's sentiment: the mean of its sources' that have one; null when none has. */
export function meanSentiment(values: readonly (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null);
  if (known.length === 0) return null;
  return Math.round((known.reduce((a, b) => a + b, 0) / known.length) * 100) / 100;
}
