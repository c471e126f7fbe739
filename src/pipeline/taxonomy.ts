/**
 * The topic taxonomy and how an article's severity follows from it (docs/pipeline.md,
 * "Topics and severity"). Deterministic: the same text always gets the same answer, and
 * every answer can be explained by the signals that were found.
 */

export type Severity = 'low' | 'medium' | 'high' | 'critical';
export const SEVERITIES: readonly Severity[] = ['low', 'medium', 'high', 'critical'];

export interface Topic {
  tag: string;
  /** Risk weight: what the topic adds to the severity score. 0 marks good news. */
  weight: number;
  /** Word stems that signal the topic, matched at the start of a word. */
  signals: string[];
}

/** In order of risk; a story's topics are listed in this order. */
export const TOPICS: readonly Topic[] = [
  {
    tag: 'product-safety',
    weight: 3,
    signals: [
      'recall',
      'injur',
      'defect',
      'unsafe',
      'contaminat',
      'hazard',
      'overheat',
      'fire risk',
      'choking',
    ],
  },
  {
    tag: 'data-privacy',
    weight: 3,
    signals: [
      'data breach',
      'breach',
      'leaked',
      'hacked',
      'hacker',
      'ransomware',
      'personal data',
      'privacy',
      'exposed records',
    ],
  },
  {
    tag: 'legal-regulatory',
    weight: 2,
    signals: [
      'lawsuit',
      'sued',
      'court',
      'regulator',
      'fined',
      'penalt',
      'investigation',
      'probe',
      'settlement',
      'antitrust',
    ],
  },
  { tag: 'labor', weight: 2, signals: ['strike', 'layoff', 'laid off', 'union', 'walkout'] },
  {
    tag: 'environment',
    weight: 2,
    signals: ['emission', 'pollut', 'spill', 'toxic', 'deforest'],
  },
  {
    tag: 'customer-experience',
    weight: 1,
    signals: ['complain', 'outage', 'refund', 'delays', 'customer service', 'downtime'],
  },
  {
    tag: 'leadership',
    weight: 1,
    signals: ['ceo', 'chief executive', 'resign', 'board of directors'],
  },
  {
    tag: 'financial',
    weight: 1,
    signals: ['earnings', 'revenue', 'profit', 'quarterly results', 'shares fell', 'stock price'],
  },
  {
    tag: 'product-launch',
    weight: 0,
    signals: ['launch', 'unveil', 'introduces', 'new product'],
  },
  { tag: 'recognition', weight: 0, signals: ['award', 'honored', 'honoured', 'praised', 'ranked'] },
];

/** Words that make any risk worse; they add 2 to the score once. */
export const INTENSIFIERS: readonly string[] = [
  'death',
  'died',
  'killed',
  'fatal',
  'class action',
  'boycott',
  'criminal',
  'arrested',
  'millions of',
];

export interface Scored {
  topics: string[];
  severity: Severity;
  /** The sum the severity was read from, kept for explanations and tests. */
  score: number;
  /** Only good-news topics were found. */
  positive: boolean;
}

/** A signal matches at the start of a word, so `court` is not found in `Harcourt`. */
const signalPattern = (words: readonly string[]) =>
  new RegExp(`(?<![\\p{L}\\p{N}])(?:${words.map((w) => w.replace(/ /g, '\\s+')).join('|')})`, 'iu');
const TOPIC_PATTERNS = TOPICS.map((t) => ({ topic: t, pattern: signalPattern(t.signals) }));
const INTENSIFIER_PATTERN = signalPattern(INTENSIFIERS);

/**
 * Topics and severity of one text (title and body): the score is the sum of the weights
 * of the topics found, each counted once, plus 2 when an intensifier appears; 0–1 is
 * low, 2 medium, 3–4 high, 5 and more critical.
 */
export function scoreText(text: string): Scored {
  const found = TOPIC_PATTERNS.filter((t) => t.pattern.test(text)).map((t) => t.topic);
  let score = found.reduce((sum, t) => sum + t.weight, 0);
  if (INTENSIFIER_PATTERN.test(text)) score += 2;
  return {
    topics: found.map((t) => t.tag),
    severity: severityOfScore(score),
    score,
    positive: found.length > 0 && found.every((t) => t.weight === 0),
  };
}

export function severityOfScore(score: number): Severity {
  return score <= 1 ? 'low' : score === 2 ? 'medium' : score <= 4 ? 'high' : 'critical';
}

/** The tags in taxonomy order, each once; `general` when nothing else applies. */
export function orderTopics(tags: Iterable<string>): string[] {
  const set = new Set(tags);
  const ordered = TOPICS.map((t) => t.tag).filter((t) => set.has(t));
  return ordered.length > 0 ? ordered : ['general'];
}

export const raise = (s: Severity, steps = 1): Severity =>
  SEVERITIES[Math.min(SEVERITIES.length - 1, SEVERITIES.indexOf(s) + steps)]!;

export const maxSeverity = (list: Iterable<Severity>): Severity => {
  let best = 0;
  for (const s of list) best = Math.max(best, SEVERITIES.indexOf(s));
  return SEVERITIES[best]!;
};
