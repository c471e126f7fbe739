/**
 * A small deterministic analyser and advisory generator that works offline. It reads
 * only the article it is given, so every citation it writes resolves to a real source.
 * The monitoring pipeline (detection across articles, spread) refines this later.
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
}

export interface GeneratedAdvisory {
  severity: 'low' | 'medium' | 'high' | 'critical';
  topics: string[];
  spread: 'contained' | 'growing' | 'widespread' | 'viral';
  assessment: 'informational' | 'opportunity' | 'watch' | 'threat' | 'crisis';
  urgency: 'low' | 'medium' | 'high' | 'immediate';
  executiveSummary: { text: string; cites: string[] }[];
  summaryBasis: string[];
  phases: { title: string; actions: string[] }[];
}

/** Topic taxonomy: tag, risk weight, and the words that signal it. */
const TOPICS: { tag: string; weight: number; words: string[] }[] = [
  {
    tag: 'product-safety',
    weight: 3,
    words: ['recall', 'injur', 'defect', 'unsafe', 'contaminat', 'hazard'],
  },
  {
    tag: 'data-privacy',
    weight: 3,
    words: ['breach', 'leak', 'hack', 'privacy', 'personal data', 'ransomware'],
  },
  {
    tag: 'legal-regulatory',
    weight: 2,
    words: ['lawsuit', 'sued', 'court', 'regulator', 'fine', 'investigation', 'settlement'],
  },
  { tag: 'labor', weight: 2, words: ['strike', 'layoff', 'union', 'walkout', 'workers'] },
  { tag: 'environment', weight: 2, words: ['emission', 'pollution', 'spill', 'climate'] },
  {
    tag: 'customer-experience',
    weight: 1,
    words: ['complain', 'refund', 'outage', 'delay', 'customer service'],
  },
  { tag: 'leadership', weight: 1, words: ['ceo', 'executive', 'resign', 'board'] },
  { tag: 'financial', weight: 1, words: ['earnings', 'revenue', 'profit', 'shares', 'stock'] },
  { tag: 'product-launch', weight: 0, words: ['launch', 'unveil', 'new product', 'introduc'] },
  { tag: 'recognition', weight: 0, words: ['award', 'honor', 'praise', 'recogni'] },
];

const INTENSIFIERS = ['death', 'died', 'class action', 'boycott', 'criminal', 'millions of'];

const PLAYBOOK: Record<string, { title: string; actions: string[] }[]> = {
  risk: [
    {
      title: 'Establish the facts',
      actions: [
        'Confirm what happened with the owning team',
        'Collect every claim made in the coverage',
      ],
    },
    {
      title: 'Prepare a holding statement',
      actions: ['Draft a factual statement', 'Get legal and communications sign-off'],
    },
    {
      title: 'Brief stakeholders',
      actions: [
        'Brief leadership and customer-facing staff',
        'Answer the publisher with the statement',
      ],
    },
    {
      title: 'Monitor and follow up',
      actions: ['Track new coverage for 72 hours', 'Publish an update when facts change'],
    },
  ],
  positive: [
    { title: 'Verify the coverage', actions: ['Check the facts reported are accurate'] },
    { title: 'Amplify', actions: ['Share the coverage on owned channels', 'Thank the publisher'] },
    { title: 'Follow up', actions: ['Offer the journalist a follow-up interview'] },
  ],
};

const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;

/**
 * Whether the article names the brand: its name, its host, the host's first label or one
 * of its configured aliases, as a whole word (any case, possessive with ' or ’ included).
 */
export function mentionsBrand(
  text: string,
  brand: { host: string; name: string; aliases?: readonly string[] },
): boolean {
  const label = brand.host.split('.')[0] ?? brand.host;
  const terms = [brand.name, brand.host, label, ...(brand.aliases ?? [])].filter(
    (t) => t.trim().length >= 2,
  );
  return terms.some((t) =>
    new RegExp(
      `(^|[^\\p{L}\\p{N}])${escapeRegExp(t.trim())}(['’]s)?($|[^\\p{L}\\p{N}])`,
      'iu',
    ).test(text),
  );
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function generateAdvisory(article: ArticleInput, sourceId = 's1'): GeneratedAdvisory {
  const haystack = `${article.title}\n${article.text}`.toLowerCase();
  const found = TOPICS.filter((t) => t.words.some((w) => haystack.includes(w)));
  let score = found.reduce((sum, t) => sum + t.weight, 0);
  if (INTENSIFIERS.some((w) => haystack.includes(w))) score += 2;
  const severity = SEVERITIES[score === 0 ? 0 : score <= 2 ? 1 : score <= 4 ? 2 : 3];
  const positive = found.length > 0 && found.every((t) => t.weight === 0);
  const assessment = positive
    ? 'opportunity'
    : (['informational', 'watch', 'threat', 'crisis'] as const)[SEVERITIES.indexOf(severity)]!;
  const urgency = (['low', 'medium', 'high', 'immediate'] as const)[SEVERITIES.indexOf(severity)]!;

  const sentences = article.text
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s+/)
    .filter((s) => s.length > 20)
    .slice(0, 2);
  const summary = [
    {
      text: `${article.publisher} reports: ${article.title}.`.replace(/\.\.$/, '.'),
      cites: [sourceId],
    },
    ...sentences.map((text) => ({ text, cites: [sourceId] })),
  ];
  return {
    severity,
    topics: found.length > 0 ? found.map((t) => t.tag) : ['general'],
    spread: 'contained',
    assessment,
    urgency,
    executiveSummary: summary,
    summaryBasis: [sourceId],
    phases: PLAYBOOK[positive ? 'positive' : 'risk']!,
  };
}

/** Words in the brand's context that say the coverage overstates the problem. */
const EASING =
  /\b(resolved|fixed|false|inaccurate|misleading|denied|no injuries|corrected|retracted)\b/i;
const URGENCIES = ['low', 'medium', 'high', 'immediate'] as const;

/**
 * A proposed update of the advisory that takes the brand's own context into account.
 * The summary keeps citing the story's sources and adds the context as the brand's
 * statement (no citation: it is not a source); context that eases the story lowers the
 * urgency one step and adds a "correct the record" phase, other context a briefing phase.
 */
export function proposeAdvisory(
  sources: (ArticleInput & { source_key: string })[],
  context: string,
): GeneratedAdvisory {
  const first = sources[0]!;
  const base = generateAdvisory(first, first.source_key);
  const easing = EASING.test(context);
  const said = context.replace(/\s+/g, ' ').trim();
  const excerpt = said.length > 280 ? `${said.slice(0, 277)}...` : said;
  const extra = easing
    ? {
        title: 'Correct the record',
        actions: [
          'Send the publisher the correction with the evidence',
          'Publish the clarification on owned channels',
        ],
      }
    : {
        title: 'Brief the team on the new context',
        actions: [
          'Share the context with everyone answering questions',
          'Update the holding statement with it',
        ],
      };
  const phases = [...base.phases];
  phases.splice(Math.min(2, phases.length), 0, extra);
  return {
    ...base,
    urgency: easing ? URGENCIES[Math.max(0, URGENCIES.indexOf(base.urgency) - 1)]! : base.urgency,
    executiveSummary: [...base.executiveSummary, { text: `The brand adds: ${excerpt}`, cites: [] }],
    summaryBasis: sources.map((s) => s.source_key),
    phases: phases.slice(0, 6),
  };
}
