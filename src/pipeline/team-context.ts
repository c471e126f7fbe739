import { SEVERITIES, type Severity, scoreText } from './taxonomy.js';

/**
 * What the team's context says of the story (docs/pipeline.md, "Proposals"), read
 * sentence by sentence: whether it denies what the coverage reports, says it is over,
 * reveals worse, and the constraints the team works under. The context is private: what
 * is read here moves the judgement and the plan, and no word of it is written out.
 */
export interface ContextReading {
  /** -1 eases the story, +1 aggravates it, 0 neither. */
  direction: -1 | 0 | 1;
  /** It denies what the coverage reports ("no system was breached"). */
  denies: boolean;
  /** It says the problem is over ("the fix shipped", "service was restored"). */
  resolved: boolean;
  /** Constraints the team works under. */
  constraints: Constraint[];
}

export type Constraint = 'legal' | 'embargo' | 'regulator';

/**
 * Context that says the coverage overstates the harm: corrected facts, nobody hurt, a
 * voluntary or precautionary step, a problem already over. English, French, German,
 * Spanish, as the signal lists.
 */
const EASING = new RegExp(
  [
    String.raw`\b(?:resolved|fixed|false|inaccurate|misleading|denied|corrected|retracted|untrue|precaution(?:ary)?|voluntar(?:y|ily)|isolated|contained|restored)\b`,
    String.raw`\bno (?:one|body|customers?|people|injur(?:y|ies)|data|personal data)\b`,
    String.raw`\bnobody\b`,
    String.raw`\bnot (?:affected|hurt|injured|accessed|true|responsible)\b`,
    String.raw`\bwas(?:n't| not) (?:hurt|injured|affected|accessed)\b`,
    String.raw`\b(?:personne n'a été|aucun(?:e)? (?:blessé|client))|\bvolontaire\b|\bfaux\b`,
    String.raw`\b(?:niemand|keine? (?:Verletzten|Kunden))\b|\bfreiwillig\b|\bfalsch\b`,
    String.raw`\b(?:nadie|ningún (?:herido|cliente))\b|\bvoluntari[oa]\b|\bfals[oa]\b`,
  ].join('|'),
  'i',
);

/** A problem said to be over. */
const OVER =
  /\b(?:(?:fix|patch|update) (?:has |was )?(?:shipped|deployed|released|rolled out)|(?:was|were|has been|have been|is|are) (?:fixed|patched|restored|resolved|back (?:up|online))|service (?:was |is |has been )?restored|back to normal)\b/i;

/**
 * Sentences that deny an incident: "not a security incident", "no system was breached".
 * Their words ("breached", "incident") are what they deny, never a signal of worse.
 */
const DENIAL = new RegExp(
  [
    String.raw`\b(?:no|not an?|never an?)\s+(?:\w+\s+)?(?:breach|incident|attack|hack|leak|recall|injur(?:y|ies)|lawsuit|investigation|fine|outage)\b`,
    String.raw`\bno (?:system|systems|server|servers|account|accounts|customer data|records?) (?:was|were|has been|have been) (?:breached|hacked|compromised|accessed|affected|exposed)\b`,
    String.raw`\b(?:was|were|is|are|has|have)(?:n't| not)(?: been)? (?:breached|hacked|compromised|accessed|exposed|leaked|recalled|sued|fined)\b`,
    String.raw`\bnot about us\b|\b(?:is|was)(?:n't| not) (?:us|our (?:company|brand|product)s?)\b`,
  ].join('|'),
  'i',
);

/**
 * Worse news the team knows is coming ("a second complaint is coming this week", "the
 * paper will publish more on Friday"): the story will grow, whatever its words weigh.
 */
const MORE_COMING =
  /\b(?:(?:another|a second|a further|a new|more) (?:complaints?|lawsuits?|claims?|stor(?:y|ies)|articles?|reports?|investigations?|allegations?|leaks?|revelations?)\b[^.]{0,60}\b(?:coming|expected|due|will|planned|is being prepared)|(?:will|plans? to|is going to|are going to) (?:publish|run|air|broadcast|file)\b)/i;

/** The constraints a context states, each by the words that say it. */
const CONSTRAINTS: readonly [Constraint, RegExp][] = [
  [
    'legal',
    /\b(?:legal|counsel|lawyers?|attorneys?|solicitors?)\b[^.]{0,60}\b(?:advis|recommend|says?|asks?|warns?|insists?)|\bno admission\b|\bwithout prejudice\b|\bprivileged\b|\blitigation hold\b/i,
  ],
  [
    'embargo',
    /\bembargo(?:ed)?\b|\bnot (?:yet )?public\b|\bconfidential until\b|\bbefore (?:the )?announcement\b|\binsider information\b/i,
  ],
  [
    'regulator',
    /\b(?:regulators?|authorit(?:y|ies)|commission|watchdog|ombudsman|attorneys? general|ico|cnil|ftc|sec|data[- ]protection)\b[^.]{0,60}\b(?:notified|informed|contacted|in touch|reviewing|investigating|inquiry)\b|\b(?:notified|informed|contacted)\b[^.]{0,40}\b(?:regulators?|authorit(?:y|ies)|commission|watchdog|ombudsman|attorneys? general|ico|cnil|ftc|data[- ]protection)/i,
  ],
];

/** One context read against the story's topics and severity from its sources. */
export function readContext(
  context: string,
  story: { topics: readonly string[]; severity: Severity },
  language?: string | null,
): ContextReading {
  const text = context.replace(/\s+/g, ' ').trim();
  let direction: -1 | 0 | 1 = 0;
  let denies = false;
  for (const sentence of text.split(/(?<=[.!?;:])\s+/)) {
    const said = scoreText(sentence, language);
    const ofTheStory = said.topics.some((t) => story.topics.includes(t));
    // A denial of something the coverage does not say ("no system was breached" beside
    // an attorney general's investigation) eases nothing: a denial eases only a story of
    // what it denies; a reassurance eases one of its own topics, or any when it names none
    // ("the reports are false", "nobody was hurt").
    if (DENIAL.test(sentence)) {
      if (ofTheStory || /\bnot about us\b|\bnot (?:us|our)\b/i.test(sentence)) {
        direction = -1;
        denies = true;
      }
      continue;
    }
    if (EASING.test(sentence)) {
      if (ofTheStory || said.topics.length === 0) direction = -1;
      continue;
    }
    // Worse news is not cancelled by a reassurance beside it.
    if (
      MORE_COMING.test(sentence) ||
      SEVERITIES.indexOf(said.severity) > SEVERITIES.indexOf(story.severity)
    ) {
      return { direction: 1, denies: false, resolved: false, constraints: constraintsOf(text) };
    }
  }
  return {
    direction,
    denies,
    resolved: direction < 0 && OVER.test(text),
    constraints: constraintsOf(text),
  };
}

const constraintsOf = (text: string): Constraint[] =>
  CONSTRAINTS.filter(([, pattern]) => pattern.test(text)).map(([c]) => c);

/** The "Do not" a constraint calls for, worded without the context's own words. */
export const CONSTRAINT_DO_NOT: Record<Constraint, string> = {
  legal: 'Do not admit liability or discuss the merits in public: follow counsel’s advice',
  embargo: 'Do not say in public what is not yet public',
  regulator: 'Do not comment in public on the regulator’s review while it runs',
};
