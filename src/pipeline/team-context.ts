import { SEVERITIES, type Severity, scoreText } from './taxonomy.js';

/**
 * What the team's context says of the story (docs/pipeline.md, "Proposals"), read
 * sentence by sentence: whether it denies what the coverage reports, says it is over,
 * reveals worse, the constraints the team works under and the steps it has already
 * taken. The context is private: what
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
  /** Steps the team says it has already taken: the plan does not ask for them again. */
  done: DoneStep[];
  /** The risks of worse news the team reports (a regulator's inquiry: legal-regulatory). */
  worse: string[];
}

/**
 * What the team works under; 'off-point': it denies something the coverage does not say
 * ("no account was breached" of a story on how a feature exposes teenagers' details).
 */
export type Constraint = 'legal' | 'embargo' | 'regulator' | 'other-party' | 'off-point';
export type DoneStep =
  | 'statement'
  | 'notify-affected'
  | 'notify-regulator'
  | 'recall'
  | 'counsel'
  | 'staff';

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
    String.raw`\bwas(?:n['’]t| not) (?:hurt|injured|affected|accessed)\b`,
    String.raw`\b(?:personne n'a été|aucun(?:e)? (?:blessé|client))|\bvolontaire\b|\bfaux\b`,
    String.raw`\b(?:niemand|keine? (?:Verletzten|Kunden))\b|\bfreiwillig\b|\bfalsch\b`,
    String.raw`\b(?:nadie|ningún (?:herido|cliente))\b|\bvoluntari[oa]\b|\bfals[oa]\b`,
  ].join('|'),
  'i',
);

/** Words that say the coverage is wrong, not only that it overstates. */
const CONTRADICTS =
  /\b(?:false|inaccurate|untrue|misleading|incorrect|wrong|denied|retracted|corrected|unconfirmed|unverified)\b/i;

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
    String.raw`\b(?:was|were|is|are|has|have)(?:n['’]t| not)(?: been)? (?:breached|hacked|compromised|accessed|exposed|leaked|recalled|sued|fined)\b`,
    String.raw`(?:\bnot|n['’]t) about us\b|\b(?:is|was)(?:n['’]t| not) (?:us|our (?:company|brand|product)s?)\b`,
  ].join('|'),
  'i',
);

/**
 * Worse news the team knows is coming ("a second complaint is coming this week", "the
 * paper will publish more on Friday"): the story will grow, whatever its words weigh.
 */
const MORE_COMING =
  /\b(?:(?:another|a second|a further|a new|more) (?:complaints?|lawsuits?|claims?|stor(?:y|ies)|articles?|reports?|investigations?|allegations?|leaks?|revelations?)\b[^.]{0,60}\b(?:coming|expected|due|will|planned|is being prepared)|\b(?:the (?:paper|newspaper|reporter|journalist|publication|outlet|broadcaster|programme|program|show|magazine|site)|they|he|she) (?:will|plans? to|is going to|are going to) (?:publish|run|air|broadcast|file)\b)/i;

/** "This is not about us", "it wasn’t our product": the coverage has the wrong brand. */
const NOT_US = /(?:\bnot|n['’]t) (?:about )?(?:us|our)\b/i;

/** A regulator, in the team's words: the one who contacts, or is contacted. */
const REGULATOR =
  '(?:regulators?|authorit(?:y|ies)|commission|watchdog|ombudsman|attorneys? general|ico|cnil|ftc|sec|data[- ]protection)';

/** The constraints a context states, each by the words that say it. */
const CONSTRAINTS: readonly [Constraint, RegExp][] = [
  [
    'legal',
    /\b(?:legal|counsel|lawyers?|attorneys?|solicitors?)\b[^.]{0,60}\b(?:advis|recommend|warn|insist|ask)\w* (?:against|not|no\b|us not|that we (?:do not|don['’]t|should not|shouldn['’]t|must not))|\bno admission\b|\bwithout prejudice\b|\bprivileged\b|\blitigation hold\b/i,
  ],
  [
    // The coverage has the wrong party: whoever it was is not named in public by the brand.
    'other-party',
    new RegExp(
      `${NOT_US.source}|\\b(?:was|were) (?:made|decided|taken|caused|done) by\\b|\\b(?:their|the supplier['’]s|the partner['’]s|the contractor['’]s) (?:fault|decision|responsibility)\\b`,
      'i',
    ),
  ],
  [
    'embargo',
    /\bembargo(?:ed)?\b|\bnot (?:yet )?public\b|\bconfidential until\b|\bbefore (?:the )?announcement\b|\binsider information\b/i,
  ],
  [
    'regulator',
    new RegExp(
      `\\b${REGULATOR}\\b[^.]{0,60}\\b(?:notified|informed|contacted|in touch|reviewing|investigating|inquiry)\\b|\\b(?:notified|informed|contacted)\\b[^.]{0,40}\\b${REGULATOR}\\b`,
      'i',
    ),
  ],
];

/** "We have already …", "we …", "the team …": the team speaking of what it did. */
const WE = String.raw`\b(?:we|the team|the company)(?:['’]ve| have| has)?(?: already| now| just)?`;
const PEOPLE =
  '(?:all |every |the )?(?:affected |impacted )?(?:customers|users|owners|people|clients|members|passengers|patients|buyers|subscribers)';

/** The steps a context says are done, each by the words that say it (English). */
const DONE: readonly [DoneStep, RegExp][] = [
  [
    'statement',
    new RegExp(
      `${WE} (?:issued|published|released|put out|sent|gave|shared|posted) (?:a |an |our |the )?(?:public |official |written )?(?:statement|press release|response|comment)`,
      'i',
    ),
  ],
  [
    'notify-affected',
    new RegExp(
      `${WE} (?:e-?mailed|notified|informed|contacted|told|written to|wrote to|called) ${PEOPLE}|\\b${PEOPLE} (?:were|have been|has been) (?:e-?mailed|notified|informed|contacted|told)`,
      'i',
    ),
  ],
  [
    'notify-regulator',
    new RegExp(
      `${WE} (?:notified|informed|contacted|reported (?:it |this |the [\\w-]+ )?to|filed (?:a |the )?(?:report|notification) with) (?:the )?(?:[\\w-]+ )?${REGULATOR}`,
      'i',
    ),
  ],
  [
    'recall',
    new RegExp(
      `${WE} (?:recalled|pulled|withdrawn|withdrew|stopped (?:selling|sales of|sales)|halted (?:sales|shipments))`,
      'i',
    ),
  ],
  [
    'counsel',
    new RegExp(
      `${WE} (?:briefed|consulted|spoken (?:to|with)|spoke (?:to|with)|engaged|involved) (?:our |the )?(?:outside |external )?(?:counsel|lawyers|legal(?: team)?|solicitors|attorneys)`,
      'i',
    ),
  ],
  [
    'staff',
    new RegExp(
      `${WE} (?:briefed|told|informed) (?:our |the |all )?(?:staff|employees|team|managers|leadership|support(?: team)?|front-?line)`,
      'i',
    ),
  ],
];

const doneOf = (text: string): DoneStep[] =>
  DONE.filter(([, pattern]) => pattern.test(text)).map(([step]) => step);

/** One context read against the story's topics and severity from its sources. */
export function readContext(
  context: string,
  story: { topics: readonly string[]; severity: Severity },
  language?: string | null,
): ContextReading {
  const text = context.replace(/\s+/g, ' ').trim();
  let direction: -1 | 0 | 1 = 0;
  let denies = false;
  let offPoint = false;
  for (const sentence of text.split(/(?<=[.!?;:])\s+/)) {
    const said = scoreText(sentence, language);
    const ofTheStory = said.topics.some((t) => story.topics.includes(t));
    // A denial of something the coverage does not say ("no system was breached" beside
    // an attorney general's investigation) eases nothing: a denial eases only a story of
    // what it denies; a reassurance eases one of its own topics, or any when it names none
    // ("the reports are false", "nobody was hurt").
    if (DENIAL.test(sentence)) {
      if (ofTheStory || NOT_US.test(sentence)) {
        direction = -1;
        denies = true;
      } else {
        offPoint = true;
      }
      continue;
    }
    if (EASING.test(sentence)) {
      if (ofTheStory || said.topics.length === 0) {
        direction = -1;
        if (CONTRADICTS.test(sentence)) denies = true;
      }
      continue;
    }
    // Worse news is not cancelled by a reassurance beside it.
    if (
      MORE_COMING.test(sentence) ||
      SEVERITIES.indexOf(said.severity) > SEVERITIES.indexOf(story.severity)
    ) {
      const worse = scoreText(text, language).topics;
      // Legal trouble coming: nothing on the merits in public, whatever counsel says yet.
      const legal: Constraint[] = worse.includes('legal-regulatory') ? ['legal'] : [];
      return {
        direction: 1,
        denies: false,
        resolved: false,
        constraints: [...new Set([...legal, ...constraintsOf(text)])],
        done: doneOf(text),
        worse,
      };
    }
  }
  return {
    direction,
    denies,
    resolved: direction < 0 && OVER.test(text),
    constraints: [...constraintsOf(text), ...(offPoint && !denies ? (['off-point'] as const) : [])],
    done: doneOf(text),
    worse: [],
  };
}

/** A constraint said not to hold: "nothing is embargoed", "no longer under embargo". */
const LIFTED = /\b(?:nothing|not|no longer|never)\b[^.]{0,20}\bembargo/i;

const constraintsOf = (text: string): Constraint[] =>
  CONSTRAINTS.filter(
    ([c, pattern]) => pattern.test(text) && !(c === 'embargo' && LIFTED.test(text)),
  ).map(([c]) => c);

/**
 * The "Do not" a constraint calls for, worded so that it gives away nothing of the
 * context (a share page shows the plan): not that counsel advised, that an embargo holds
 * or that a regulator is in touch, only the move to avoid, which is sound either way.
 */
export const CONSTRAINT_DO_NOT: Record<Constraint, string> = {
  // Not "nor anything that admits liability": on a share page it tells of counsel's advice
  // (the thirteenth read).
  legal: 'Do not say anything in public on a legal matter without counsel',
  embargo: 'Do not announce anything beyond what is already public',
  regulator: 'Do not say anything in public about an official process without counsel',
  'other-party': 'Do not name anyone else as responsible in public: settle it with them directly',
  'off-point':
    'Do not answer with a denial of something the coverage does not say: it reads as evading what it does say',
};
