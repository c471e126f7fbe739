/**
 * The response plans of the built-in generator, one per topic (docs/pipeline.md,
 * "Playbook"). A story gets the plan of its riskiest topic: the first of its topics in
 * taxonomy order. Each plan has three to five phases of short imperative actions, which
 * leaves room for the phase a proposal adds (six at most).
 */

import { EVENT_TYPES, eventType } from './events.js';
import { inProse } from './particulars.js';
import { eventSentence, ownsStory, recallUnderWay, type Situation } from './situation.js';
import { CONSTRAINT_DO_NOT, type Constraint, type DoneStep } from './team-context.js';

/** Phases a plan holds at most. */
export const MAX_PHASES = 6;

export interface Phase {
  title: string;
  actions: string[];
  /** Who leads it: a function every organisation has, for the team to name a person. */
  owner?: string;
  /** It runs for the life of the story (monitoring) rather than by a deadline. */
  ongoing?: boolean;
  /** It is due with the phase before it (briefing on a statement is due with the statement). */
  together?: boolean;
}

const FACTS: Phase = {
  title: 'Establish the facts',
  owner: 'Communications',
  actions: [
    'Confirm what happened with the owning team',
    'Collect every claim made in the coverage',
  ],
};
const HOLDING: Phase = {
  title: 'Prepare a holding statement',
  owner: 'Communications',
  actions: ['Draft a factual statement', 'Get legal and communications sign-off'],
};
/**
 * A statement goes to publishers who ask; it is sent out unasked only when the story is
 * critical (planOf): sending one about a smaller story, or during an inquiry, makes it
 * bigger.
 */
const ANSWER_WHEN_ASKED = 'When publishers ask, answer with the approved statement';
const SEND_STATEMENT = 'Send the approved statement to the publishers covering the story';
// Those who may be asked hear the line the day it is agreed, not two days later (a
// consultant's read: spokespeople facing the morning rounds unbriefed improvise).
const BRIEF_STAFF = 'Brief leadership and customer-facing staff';
const BRIEF: Phase = {
  title: 'Brief stakeholders',
  owner: 'Communications',
  together: true,
  actions: [BRIEF_STAFF, ANSWER_WHEN_ASKED],
};

/**
 * Who else the coverage says the story touches, as a briefing step names them ("employees
 * and investors (through investor relations)"); null when nobody beyond leadership and
 * customer-facing staff. Regulators are counsel's, customers the front line's.
 */
function alsoConcerned(situation: Situation): string | null {
  const names: Partial<Record<string, string>> = {
    employees: 'employees',
    investors: 'investors (through investor relations)',
    partners: 'partners',
  };
  const list = situation.stakeholders.map((k) => names[k]).filter((n) => n !== undefined);
  if (list.length === 0) return null;
  return list.length === 1 ? list[0]! : `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`;
}
const TRACK = 'Track new coverage for 72 hours';
const FOLLOW_UP =
  'When facts change, agree the updated line with the same sign-off before it goes out';
const MONITOR: Phase = {
  title: 'Monitor and follow up',
  owner: 'Communications',
  ongoing: true,
  // An update goes out through the same sign-off as the first word: on results or a legal
  // matter, an update published on its own is a disclosure.
  actions: [TRACK, FOLLOW_UP],
};

/**
 * How long, and what, a story is watched for by its event (trackingFor): an inquiry runs
 * until it closes, an outage until service is back; 72 hours is only the default (a
 * consultant's read: "monitor until the inquiry closes, not for 72 hours").
 */
const UNTIL_CLOSED =
  'Track new coverage and filings until the matter closes; review the line with counsel each week';
const TRACKING: Partial<Record<string, string>> = {
  'regulator-action': UNTIL_CLOSED,
  lawsuit: UNTIL_CLOSED,
  outage: 'Track new coverage until service is restored, and for 48 hours after',
  criticism: 'Track whether other titles take the criticism up, for a week',
  layoffs: 'Track new coverage, and what employees say in public, for two weeks',
  'labor-dispute': 'Track new coverage, and what employees say in public, until it is settled',
  earnings: 'Track coverage and analysts’ notes for a week after the results',
};

/**
 * The tracking step for the situation (TRACKING) and the team's constraints; an accusation
 * watches its accuser.
 */
function trackingFor(situation: Situation, constraints: readonly Constraint[]): string {
  // Legal trouble the team reports runs until it closes, whatever the coverage was about.
  if (constraints.includes('legal') || constraints.includes('regulator')) return UNTIL_CLOSED;
  if (isPlanForResolved(situation) || situation.status === 'resolved') {
    // Over, but with a date still ahead (the awards show the row was about): watched
    // through it (the thirteenth read: 48 hours ended before the flashpoint).
    return situation.ahead
      ? `Track new coverage through ${situation.ahead.when}, and for 48 hours after; close the story if none comes`
      : 'Track new coverage for 48 hours; close the story if none comes';
  }
  if (situation.event === 'accusation') {
    const who = situation.by ?? 'the accusers';
    return `Track new coverage, and what ${who} ${agree(who, 'say')} next, for a week`;
  }
  return TRACKING[situation.event] ?? TRACK;
}

/** What an inquiry or a claim asks, and its deadlines (named when the coverage names who). */
const ASKED_OF_BRAND = 'Establish with counsel what is asked of the brand, and by when';

export const PLAYBOOK: Record<string, Phase[]> = {
  'product-safety': [
    FACTS,
    {
      title: 'Protect customers',
      owner: 'Quality and legal',
      actions: [
        'If the defect is confirmed, decide with quality and legal whether to stop sales or recall',
        'Publish clear safety instructions for owners of the product',
      ],
    },
    HOLDING,
    {
      title: 'Inform regulators and partners',
      owner: 'Legal',
      actions: [
        'Notify the product-safety authority where the law requires it',
        'Brief retailers, distributors and customer-facing staff',
      ],
    },
    MONITOR,
  ],
  security: [
    {
      title: 'Contain the incident',
      owner: 'Security',
      actions: [
        'Confirm with security what is affected and whether the attack or flaw is closed',
        'Preserve the evidence',
      ],
    },
    {
      title: 'Protect customers',
      owner: 'Security and product',
      actions: [
        'Ship or publish the fix and the steps customers should take',
        'Tell customers whether their data or accounts were reached',
      ],
    },
    HOLDING,
    BRIEF,
    MONITOR,
  ],
  'data-privacy': [
    {
      title: 'Contain and establish the facts',
      owner: 'Security',
      actions: [
        'Confirm with security what data was exposed and whether access is closed',
        'Preserve the evidence',
      ],
    },
    // Notifying a regulator or offering remedies on an allegation nobody has confirmed
    // would tell the world a breach happened: each step says the finding it waits for (the
    // GDPR's 72 hours run from learning of a breach, not from an article about one).
    {
      title: 'Notify if personal data was exposed',
      owner: 'Legal',
      actions: [
        'If the review confirms personal data was exposed, notify the data-protection authority within 72 hours of learning it (GDPR art. 33)',
        'If it was, prepare the notice to the people affected',
      ],
    },
    HOLDING,
    {
      title: 'Support the people affected, if any',
      owner: 'Customer support',
      actions: [
        'If people were affected, open a help page and a contact line for them',
        'If data was exposed, offer protection that fits it (credit monitoring for financial data)',
      ],
    },
    MONITOR,
  ],
  'legal-regulatory': [
    {
      title: 'Brief counsel',
      owner: 'Legal',
      // A lawsuit or an inquiry asks for the records: keeping them is the first duty.
      actions: [
        'Share the coverage with legal counsel',
        ASKED_OF_BRAND,
        'Preserve the relevant records',
        'Agree what may be said in public',
      ],
    },
    {
      title: 'Prepare a holding statement',
      owner: 'Communications',
      actions: ['Draft a statement counsel approves', 'Avoid commenting on the merits'],
    },
    BRIEF,
    MONITOR,
  ],
  labor: [
    // Who was told what, and on which terms, is HR's to establish.
    { ...FACTS, owner: 'HR' },
    {
      title: 'Talk to employees first',
      owner: 'HR, with employment counsel',
      actions: [
        'Brief managers and staff before any public statement',
        'Open a channel for employee questions',
        // "Sign by Monday or be treated as resigning": the flashpoint has a date.
        'If staff were given a deadline or terms, decide on them with legal before they fall due',
      ],
    },
    HOLDING,
    MONITOR,
  ],
  environment: [
    FACTS,
    {
      title: 'Limit the impact',
      owner: 'Operations',
      actions: [
        'Confirm containment and clean-up measures with operations',
        'Inform the environmental authority and local community',
      ],
    },
    HOLDING,
    MONITOR,
  ],
  'customer-experience': [
    {
      title: 'Understand the complaints',
      owner: 'Customer support',
      actions: ['Quantify affected customers with support', 'Find the root cause'],
    },
    {
      title: 'Respond to customers',
      owner: 'Customer support',
      actions: [
        'Publish a status update and an apology where due',
        'If customers lost out, give support a script and a remedy',
      ],
    },
    MONITOR,
  ],
  leadership: [
    {
      title: 'Align the message',
      owner: 'Chief executive’s office',
      actions: ['Agree the leadership message with the board', 'Prepare a Q&A'],
    },
    {
      title: 'Brief stakeholders',
      owner: 'Communications',
      actions: ['Brief employees, investors and key customers'],
    },
    MONITOR,
  ],
  financial: [
    // Coverage of results reads the brand's own release: the work is checking it was read
    // right, and answering what it stresses, within what has been disclosed.
    {
      title: 'Check the numbers',
      owner: 'Investor relations, with finance',
      actions: [
        'Check the figures and guidance reported against what the company released',
        'If a figure is misreported, have investor relations ask the publisher to correct it',
      ],
    },
    {
      title: 'Brief investor relations',
      owner: 'Investor relations',
      actions: [
        'Prepare answers for analysts and investors on what the coverage stresses (guidance, the share price)',
        'Say nothing beyond what has been disclosed: anything new said to some is a disclosure owed to all',
      ],
    },
    MONITOR,
  ],
  'product-launch': [
    {
      title: 'Verify the coverage',
      owner: 'Communications',
      actions: ['Check the facts reported are accurate'],
    },
    // Launch coverage may be a critic's: it is shared only once a person has read it as
    // favourable (a column calling the product "backwards" is no launch to amplify).
    {
      title: 'Amplify',
      owner: 'Marketing',
      actions: [
        // Sharing a piece makes its figures the brand's own claims (a range measured on one
        // market's test, a price): they are checked first.
        'If the piece is favourable and its figures are ones the brand can stand behind where it shares them, share it on owned channels and thank the journalist',
        'Otherwise, note what it criticises for the product team',
      ],
    },
    {
      title: 'Follow up',
      owner: 'Press office',
      actions: ['If the piece is favourable, offer the journalist a follow-up interview'],
    },
  ],
  recognition: [
    {
      title: 'Verify the coverage',
      owner: 'Communications',
      actions: ['Check the facts reported are accurate'],
    },
    {
      title: 'Amplify',
      owner: 'Marketing',
      actions: ['Share the recognition on owned channels', 'Thank the people behind it'],
    },
    {
      title: 'Follow up',
      owner: 'Press office',
      actions: ['Offer the journalist a follow-up interview'],
    },
  ],
  general: [
    {
      title: 'Read the coverage',
      owner: 'Communications',
      actions: ['Check the facts reported are accurate'],
    },
    {
      title: 'Decide whether to respond',
      owner: 'Communications',
      actions: [
        'If the coverage gets a fact wrong, ask the publisher to correct it',
        'Otherwise, no response is needed',
      ],
    },
    {
      title: 'Monitor',
      owner: 'Communications',
      ongoing: true,
      actions: ['Watch for follow-up coverage for a week'],
    },
  ],
};

const BRIEF_LEADERSHIP: Phase = {
  title: 'Brief leadership',
  owner: 'Communications',
  actions: ['Share the piece and the facts checked with leadership'],
};

/** People who depend on the service most are reached first, before anyone else. */
const LOOK_AFTER: Phase = {
  title: 'Reach those who depend on it most',
  owner: 'Operations',
  actions: [
    'Contact the customers for whom it is a matter of health or safety (medical equipment, care homes) directly, first',
    'If customers lost out, decide with legal on a remedy',
  ],
};
const KEEP_INFORMED: Phase = {
  title: 'Keep customers informed',
  owner: 'Customer support',
  actions: [
    'Publish what is affected, where, and when service is expected back; update it on a fixed schedule until it is restored',
    'Give customer-facing staff a script with the same facts',
  ],
};

/**
 * What replaces a new statement once the brand has one on record ("we are cooperating
 * with the inquiry"): a second, different line would read as a change of course.
 */
const HOLD_POSITION: Phase = {
  title: 'Hold the position on record',
  owner: 'Communications',
  actions: [
    // Until then nothing new, and nothing repeated: restating a defiant line on record
    // ("we make no apology for … the nonsense and lies") while the accusation stands keeps
    // the story alive (the fifteenth read); "we are cooperating" loses nothing by waiting.
    'Have leadership and legal decide whether to hold what the brand has already said or change it; until then, say nothing new in public',
  ],
};

/** A shutoff over until the next one: how customers will be warned again. */
const NEXT_TIME: Phase = {
  title: 'Prepare for the next one',
  owner: 'Operations',
  actions: [
    'Tell customers how they will be warned if it happens again, and how far ahead',
    'Agree the next warning’s wording and channels with local authorities now',
    // A utility reports each shutoff to its regulator once it is over.
    'File the report the regulator requires after the event, on time',
  ],
};

/** Criticism's public answer, and the same answer when legal trouble is coming. */
const RESPOND_FAIR = 'Respond where it is fair';
const THROUGH_COUNSEL: Phase = {
  title: 'Respond only through counsel',
  owner: 'Legal',
  actions: [
    'Put any public commitment or correction to counsel before it is made',
    // A claim under challenge that stays live is repeated every day it runs.
    'Review with counsel what the brand itself claims on the matter (adverts, product pages), and whether to pause or qualify it meanwhile',
  ],
};

/** A deal's terms go out once final; a deal signed and announced is shared as announced. */
const SHARE_WHEN_FINAL =
  'Once the terms are final and public, share them on owned channels as legal and investor relations approve';
const SHARE_AS_ANNOUNCED =
  'Share the announcement on owned channels in the words agreed with the other party, as legal and investor relations approve';
/** A deal the coverage reports done: signed, inked, placed, won, announced. */
const DEAL_DONE =
  /\b(?:signed|signs|inks?|inked|won|wins|awarded|placed|places|announced|completed|closed) (?:a |an |the |its |their )?(?:[\w$.,-]+ ){0,4}(?:contract|deal|order|agreement|merger|acquisition|takeover)/i;

/**
 * Criticism's public answer through counsel once legal trouble is coming; where the plan
 * already reviews the brand's own claims with legal, that phase takes counsel's gate
 * instead of a second phase saying the same (the twelfth read: two phases reviewing the
 * claims pushed monitoring out of a six-phase proposal).
 */
function throughCounsel(plan: readonly Phase[]): Phase[] {
  if (!plan.some((p) => p.title === OWN_CLAIMS.title))
    return plan.map((p) => (p.title === RESPOND_FAIR ? THROUGH_COUNSEL : p));
  return plan
    .filter((p) => p.title !== RESPOND_FAIR)
    .map((p) =>
      p.title === OWN_CLAIMS.title
        ? { ...p, actions: [...p.actions, THROUGH_COUNSEL.actions[0]!] }
        : p,
    );
}

/** Plans the situation calls for before any topic's (planOf). */
const SITUATION_PLANS = {
  /** The brand is named in passing, as a source, or in the page's furniture. */
  aside: [
    // One phase: the service itself watches for coverage that puts the brand at the centre,
    // so a team task to watch would be busywork (a consultant's read: "log it, no action").
    {
      title: 'Log the mention',
      owner: 'Communications',
      actions: [
        'Check the brand is named accurately, and note the context it is named in',
        'If the mention states a fact about the brand that is wrong, ask the publisher to correct it; otherwise no response is needed',
      ],
    },
  ],
  opinion: [
    {
      title: 'Read the argument',
      owner: 'Communications',
      actions: [
        'List what the piece says about the brand, telling fact from opinion',
        'Check each stated fact with the owning team',
      ],
    },
    {
      title: 'Decide whether to answer',
      owner: 'Communications',
      actions: [
        'If the piece states facts that are wrong, offer the publisher a short factual reply',
        'Otherwise let the opinion stand',
      ],
    },
    BRIEF_LEADERSHIP,
    {
      title: 'Monitor',
      owner: 'Communications',
      ongoing: true,
      actions: ['Watch whether other titles take the argument up'],
    },
  ],
  review: [
    {
      title: 'Read the review',
      owner: 'Product',
      actions: [
        'Share its findings with the product team',
        'Check the facts it states about the product',
      ],
    },
    {
      title: 'Respond where it helps',
      owner: 'Communications',
      actions: [
        'If the review states a fact that is wrong, send the reviewer the correction',
        'If it is favourable, share it on owned channels',
      ],
    },
    {
      title: 'Monitor',
      owner: 'Communications',
      ongoing: true,
      actions: ['Watch for other reviews of the same product'],
    },
  ],
  accusation: [
    {
      title: 'Review the allegation',
      owner: 'Legal',
      actions: [
        'Establish internally, with the owning team and counsel, what is alleged and what is true',
        'Preserve the relevant records',
      ],
    },
    // Someone may already have answered for the brand (an executive, a minister for a
    // party) in words the situation cannot tie to it: that answer is held, never
    // contradicted by an "aware and reviewing" line.
    {
      title: 'Prepare a holding statement',
      owner: 'Communications',
      actions: [
        // Holding a line given (a minister's "we make no apology") is a decision, not a
        // default: it may be the one that escalates (the thirteenth read).
        'Find whether anyone has already answered for the brand in public (spokespeople, executives, officials); if so, have leadership decide whether to hold that line or change it, before anyone speaks again',
        'If nobody has, say the brand is aware of the allegation and is looking into it, with legal sign-off',
      ],
    },
    BRIEF,
    MONITOR,
  ],
  /**
   * A service down: those who depend on it most first, then facts on a schedule, then
   * the cause (no promise it cannot recur before the cause is known).
   */
  outage: [
    LOOK_AFTER,
    KEEP_INFORMED,
    {
      title: 'Establish the cause',
      owner: 'Operations',
      actions: [
        'Find the root cause with the owning team',
        'Once it is known, say what is being done about it, promising only what can be kept',
      ],
    },
    MONITOR,
  ],
  /**
   * A service switched off on purpose, for safety or works: there is no fault to find,
   * only people to reach before it goes off and a reason to explain.
   */
  shutoff: [
    LOOK_AFTER,
    KEEP_INFORMED,
    {
      title: 'Explain the decision',
      owner: 'Communications',
      actions: [
        'Say why the service is switched off and how the areas were chosen, in the same words everywhere',
        'Coordinate the message with local authorities and emergency services',
        // A utility's shutoff is reported to its regulator: a late notice is the next story.
        'Confirm the notices the regulator requires were given, and on time',
      ],
    },
    MONITOR,
  ],
  criticism: [
    {
      title: 'Understand the criticism',
      owner: 'Communications',
      actions: [
        'List the complaints made and who makes them',
        'Check with the owning team which are fair',
      ],
    },
    {
      title: RESPOND_FAIR,
      owner: 'Communications',
      actions: [
        // A promise made to answer criticism is the next one to break (or evidence in a
        // claim over what was advertised): only what the owners have decided is said.
        'If the criticism points to a real problem, agree with the product owner and legal what the brand can commit to, and say only what is decided',
        // A correction disputes the publisher: only a fact the brand can prove wrong, with
        // legal's sign-off, and never one about what the brand itself claimed (disputing its
        // own advertising on launch day is the second story).
        'If it misstates a fact the brand can prove wrong, ask the publisher to correct that fact, once legal agrees; never dispute what the brand itself claimed',
      ],
    },
    MONITOR,
  ],
  /**
   * Customers' complaints about the service (long waits, a refund open for weeks): the
   * answer is the cases resolved and the cause fixed, not a review of what the brand can
   * commit to with legal, nor "opinion" to leave be (the fourteenth read of the demo).
   */
  customerReviews: [
    {
      title: 'Find what the reviewers report',
      owner: 'Product, with Customer support',
      actions: [
        'Reproduce the problem the reviews describe and find which version and customers it affects',
        'Check support tickets for the same problem',
      ],
    },
    {
      title: 'Answer the reviewers where they wrote',
      owner: 'Customer support',
      actions: [
        'Reply to each review, where the store allows, acknowledging the problem and saying what to do meanwhile, without disputing their experience',
        'Give those affected a direct way to reach support',
      ],
    },
    {
      title: 'Fix it and say so',
      owner: 'Product',
      actions: ['Once fixed, say so in the release notes and in the replies to the reviews'],
    },
    {
      title: 'Watch the reviews',
      owner: 'Customer support',
      actions: ['Watch new reviews and the rating for the same problem'],
    },
  ],
  complaints: [
    {
      title: 'Resolve the cases described',
      owner: 'Customer support',
      actions: [
        'Find the cases the coverage describes and resolve them first',
        'Check with the owning team whether the problem is wider than those cases (waiting times, backlogs)',
      ],
    },
    {
      title: 'Fix the cause',
      owner: 'Customer support, with the business owner',
      actions: [
        'Decide what changes (staffing, opening hours, how long a case may wait) and by when',
        'Once decided, tell customers what is changing and when it will be better',
      ],
    },
    {
      title: 'Answer the publisher',
      owner: 'Communications',
      actions: [
        'Give the publisher what was resolved and what is changing, without disputing the customers’ experience',
      ],
    },
    MONITOR,
  ],
  /**
   * Criticism that people are put at risk by the product (children's contact details on
   * show, a feature that exposes users): the answer is a change to the product, not a
   * dispute of what was reported (a consultant's read: correcting a child-safety story is
   * the worst stance there is).
   */
  safetyCriticism: [
    {
      title: 'Understand the risk',
      owner: 'Product, with trust and safety',
      actions: [
        'List the risks the coverage describes, and who is exposed to them',
        'Establish with the product team whether the product allows it, and for how many users',
      ],
    },
    {
      title: 'Decide what changes',
      owner: 'Product',
      actions: [
        'Decide with the product owner and legal what changes in the product (a default, a setting, a warning), and when',
        'Say what is changing once it is decided, and only that',
      ],
    },
    BRIEF,
    MONITOR,
  ],
  deal: [
    {
      title: 'Verify the coverage',
      owner: 'Communications',
      actions: ['Check the terms reported are accurate'],
    },
    {
      title: 'Amplify',
      owner: 'Communications',
      actions: [SHARE_WHEN_FINAL, 'Brief employees and partners'],
    },
    {
      // A listing, an acquisition or a contract may be under disclosure rules: what is
      // said about it goes through the people who know them.
      title: 'Follow up',
      owner: 'Press office',
      actions: ['Route interview requests through legal and investor relations first'],
    },
  ],
  /** A listing, a share sale, a bond issue: under disclosure rules from first to last. */
  offering: [
    {
      title: 'Check the terms reported',
      owner: 'Investor relations',
      actions: [
        'Check the terms the coverage reports against the filing and what has been announced',
      ],
    },
    {
      title: 'Say it through the formal announcement',
      owner: 'Investor relations',
      actions: [
        'Publish terms only in the exchange announcement and the company’s own release, as legal approves',
        'Once announced, brief employees and partners with the announcement’s words',
      ],
    },
    {
      title: 'Follow up',
      owner: 'Investor relations',
      actions: ['Route every question on the offering through investor relations and legal'],
    },
  ],
  /**
   * The brand's own announcement, read on its own site: nothing to verify or wait for,
   * only the pickup to follow and the people to tell.
   */
  ownAnnouncement: [
    {
      title: 'Track the pickup',
      owner: 'Communications',
      actions: [
        'Watch which titles pick the announcement up and how they frame it',
        'Answer journalists’ questions with the announcement’s own facts',
      ],
    },
    {
      title: 'Tell the people it concerns',
      owner: 'Marketing',
      actions: [
        'Share it with partners, sales and customer-facing staff',
        'Share it on owned channels where it is not yet',
      ],
    },
    MONITOR,
  ],
  /**
   * A row or an accusation the coverage reports as over ("the row seems to be over"): what
   * is still open is closed in private, and nothing reopens it (a consultant's read: an
   * over row planned as a live accusation, with a holding statement, restarts it).
   */
  settled: [
    {
      title: 'Close what is still open',
      owner: 'Legal, with the business owner',
      actions: [
        'Agree in private with the other side what is settled and what is still open',
        'Put what was agreed in writing',
      ],
    },
    {
      title: 'Answer only when asked',
      owner: 'Press office',
      actions: [
        // Neither the brand's words during the row (the fourteenth read: they made the other
        // side's case look baseless) nor "the parties are settling it", which concedes the
        // other side's framing (the fifteenth): the outcome, and nothing of the row.
        'If asked, confirm the outcome in one line, with no comment on what either side said during the row',
        'Start no new coverage of a row that is over',
      ],
    },
    MONITOR,
  ],
  /**
   * A recall the brand has already announced: no decision left to take on it, only the
   * recall to run well and one line to hold (a consultant's read of the demo: "decide
   * whether to recall" for a recall announced on Friday).
   */
  recallUnderWay: [
    {
      title: 'Run the recall',
      owner: 'Quality and customer support',
      actions: [
        'Check the recall notice reaches every owner: registered customers, retailers, the website and the product pages',
        'Make sure returns and refunds cope with the demand the coverage will bring: the help page, the contact line, the refund process',
      ],
    },
    {
      title: 'Hold one line',
      owner: 'Communications',
      actions: [
        'Answer every question from the recall notice, in its words, adding nothing it does not say',
        'Repeat the notice’s safety advice wherever customers ask',
      ],
    },
    {
      title: 'Keep regulators, counsel and partners informed',
      owner: 'Legal',
      actions: [
        'Report to the product-safety authority as the recall runs, where the law requires it',
        'Share the coverage with legal counsel, and preserve the records of the defect and the reports',
        'Brief retailers, distributors and customer-facing staff',
      ],
    },
    {
      title: 'Monitor and follow up',
      owner: 'Communications',
      ongoing: true,
      actions: [
        'Track new coverage, injury reports and returns until the recall closes',
        FOLLOW_UP,
      ],
    },
  ],
  /** A problem the coverage reports as over: confirm it, answer when asked, no more. */
  resolved: [
    {
      title: 'Confirm it is over',
      owner: 'Operations',
      actions: [
        'Check with the owning team that the problem is closed, and what is being done about its cause',
        // Only those not told yet: a note a week later to millions who knew restarts a
        // closed story.
        'If those affected have not been told it is over, tell them directly, through the channel that told them of it',
        'Note what customers were told, and when',
      ],
    },
    {
      title: 'Answer only when asked',
      owner: 'Press office',
      actions: [
        'If asked, say what was fixed and when',
        'Start no new coverage of a problem that is over',
      ],
    },
    MONITOR,
  ],
} satisfies Record<string, Phase[]>;

/**
 * The plan for a brand's situation (docs/pipeline.md, "Playbook"): a mention in passing
 * gets no crisis plan, an opinion piece an answer to its argument, a review the review's,
 * an accusation a review before any statement, a problem reported over a check that it
 * is, an outage those who depend on the service first, the brand's own announcement its
 * pickup; otherwise the plan of its riskiest topic. A position already on record is held.
 * A short "Do not" phase follows when the facts make an obvious move wrong. Owners and
 * deadlines are added once the urgency is known (scheduled).
 */
export function planOf(
  situation: Situation,
  topics: readonly string[],
  constraints: readonly Constraint[] = [],
  severity: 'low' | 'medium' | 'high' | 'critical' = 'medium',
): Phase[] {
  const aside = !ownsStory(situation.role);
  const base = aside ? SITUATION_PLANS.aside : basePlan(situation, topics);
  // A statement goes out unasked only for a critical story (ANSWER_WHEN_ASKED).
  const plan =
    severity === 'critical' && base.some((p) => p.actions.includes(ANSWER_WHEN_ASKED))
      ? base.map((p) => ({
          ...p,
          actions: p.actions.map((a) => (a === ANSWER_WHEN_ASKED ? SEND_STATEMENT : a)),
        }))
      : base;
  const specific = aside
    ? plan
    : withParticulars(withTracking(plan, situation, constraints), situation);
  // With legal trouble coming, a public answer to criticism goes through counsel: a
  // commitment or a correction made now is evidence later.
  const counselled = constraints.includes('legal') ? throughCounsel(specific) : specific;
  // An updated line is followed up only where the plan gives one (a statement, a position
  // held, updates to customers): elsewhere the same closing line on every plan read as
  // boilerplate (the eleventh and twelfth reads).
  const gated = counselled.some(givesALine)
    ? counselled
    : counselled.map((p) => ({ ...p, actions: p.actions.filter((a) => a !== FOLLOW_UP) }));
  const own = doNot(situation, topics, aside);
  const avoid = [...new Set([...constraints.map((c) => CONSTRAINT_DO_NOT[c]), ...own])].slice(0, 4);
  return avoid.length > 0 ? [...gated, { title: DO_NOT, actions: avoid }] : gated;
}

/**
 * The plan naming the article's own particulars where the situation read them: the party
 * acting against the brand ("Establish with counsel what the New York State Attorney
 * General is asking of the brand"), the date the coverage gives for the next turn ("Brief
 * managers and staff … before the end of Monday 18 November: the coverage says …"), the
 * others it says the story touches, and a deal reported signed. A step is rewritten or one
 * is added to the phase it belongs to; nothing is guessed when the situation has none.
 */
function withParticulars(plan: readonly Phase[], situation: Situation): Phase[] {
  const { by, ahead, deadline } = situation;
  const others = alsoConcerned(situation);
  const rewrite = (action: string): string[] => {
    if (action === SHARE_WHEN_FINAL && DEAL_DONE.test(eventSentence(situation)))
      return [SHARE_AS_ANNOUNCED];
    if (others && action === BRIEF_STAFF)
      return [action, `Brief ${others} too: the coverage concerns them`];
    if (by && action === ASKED_OF_BRAND) {
      if (situation.event === 'regulator-action')
        return [`Establish with counsel what ${by} is asking of the brand, and by when`];
      if (situation.event === 'lawsuit')
        return [`Obtain what ${by} has filed, and put its deadlines in counsel's diary`];
    }
    if (
      by &&
      action.startsWith('Establish internally, with the owning team and counsel, what is alleged')
    )
      return [
        `Establish internally, with the owning team and counsel, what ${by} alleges and what is true`,
      ];
    if (by && action === 'List the complaints made and who makes them')
      return [`List the complaints ${by} ${agree(by, 'make')} and where`];
    if (
      by &&
      situation.event === 'labor-dispute' &&
      action === 'Brief managers and staff before any public statement'
    )
      return [action, `Find out what ${by} ${agree(by, 'ask')} for and where talks stand`];
    if (
      deadline &&
      action ===
        'If staff were given a deadline or terms, decide on them with legal before they fall due'
    )
      return [
        `Decide with legal, before ${deadline.when}, on the deadline staff were given: “${deadline.said}”`,
      ];
    if (ahead && action === 'Brief managers and staff before any public statement')
      return [
        `Brief managers and staff before any public statement, and before ${ahead.when}: the coverage says “${ahead.said}”`,
      ];
    return [action];
  };
  const out = plan.map((p) => ({ ...p, actions: p.actions.flatMap(rewrite) }));
  // A date no step has taken up still sets the pace: the first phase is done before it.
  const used = out.some((p) => p.actions.some((a) => ahead !== null && a.includes(ahead.said)));
  if (ahead && !used && out[0]) {
    out[0] = {
      ...out[0],
      actions: [
        ...out[0].actions,
        `Have this done before ${ahead.when}: the coverage says “${ahead.said}”`,
      ],
    };
  }
  return out;
}

/** The plan with its tracking step fitted to the situation (trackingFor). */
function withTracking(
  plan: readonly Phase[],
  situation: Situation,
  constraints: readonly Constraint[],
): Phase[] {
  const track = trackingFor(situation, constraints);
  return plan.map((p) => ({ ...p, actions: p.actions.map((a) => (a === TRACK ? track : a)) }));
}

/** A phase that gives the brand's line in public, which facts changing would update. */
const givesALine = (p: Phase) =>
  [
    HOLDING.title,
    HOLD_POSITION.title,
    KEEP_INFORMED.title,
    PROTECT_NOW.title,
    'Explain the decision',
    'Hold one line',
  ].includes(p.title) || p.actions.some((a) => a === ANSWER_WHEN_ASKED || a === SEND_STATEMENT);

/** A verb agreeing with a party: "critics make", "the union makes". */
const agree = (party: string, verb: string) => (party.endsWith('s') ? verb : `${verb}s`);

/** The plan of a situation that is the brand's own story (planOf), before its "Do not". */
function basePlan(situation: Situation, topics: readonly string[]): Phase[] {
  const plan = planOfEvent(situation, topics);
  // A position already given is held, not replaced by a new statement (an "aware and
  // reviewing" line after "we are cooperating" would read as a change of course).
  if (!situation.onRecord || eventType(situation.event).polarity !== 'adverse') return plan;
  return plan.map((p) => (p.title === HOLDING.title ? HOLD_POSITION : p));
}

/** The plan for the situation's event, before the brand's position on record is kept. */
function planOfEvent(situation: Situation, topics: readonly string[]): Phase[] {
  const type = eventType(situation.event);
  if (situation.ownSite && type.polarity !== 'adverse') return SITUATION_PLANS.ownAnnouncement;
  // Criticism that people are put at risk is answered by the product, argued or reported.
  const safety = situation.event === 'criticism' && topics.some((t) => SAFETY_TOPICS.has(t));
  if (situation.opinion && type.weight < 3 && !safety) return SITUATION_PLANS.opinion;
  if (isPlanForResolved(situation)) {
    // Over until the next one: those it touched are told how they will be warned again.
    return situation.event === 'outage' && byDecision(situation)
      ? [SITUATION_PLANS.resolved[0]!, NEXT_TIME, ...SITUATION_PLANS.resolved.slice(1)]
      : SITUATION_PLANS.resolved;
  }
  if (situation.status === 'resolved' && situation.event === 'accusation')
    return SITUATION_PLANS.settled;
  if (recallUnderWay(situation)) return SITUATION_PLANS.recallUnderWay;
  if (breachOnRecord(situation)) return breachConfirmed(situation);
  switch (situation.event) {
    case 'review':
      // Customers' own reviews of one or two stars are complaints to answer where they
      // were made, not a critic's review to correct.
      return situation.stars !== null && situation.stars <= 2
        ? SITUATION_PLANS.customerReviews
        : SITUATION_PLANS.review;
    case 'accusation':
      return SITUATION_PLANS.accusation;
    case 'outage':
      return byDecision(situation) ? SITUATION_PLANS.shutoff : SITUATION_PLANS.outage;
    case 'criticism': {
      if (safety) return SITUATION_PLANS.safetyCriticism;
      if (customersComplain(situation)) return SITUATION_PLANS.complaints;
      // Criticism that the product falls short of what the brand itself promised: the
      // claim is the brand's own risk, reviewed before anyone answers.
      const plan = situation.named.some((s) => OWN_CLAIM.test(s))
        ? [SITUATION_PLANS.criticism[0]!, OWN_CLAIMS, ...SITUATION_PLANS.criticism.slice(1)]
        : SITUATION_PLANS.criticism;
      // Criticism that talks of a lawsuit or a regulator ("could breach consumer law",
      // "regulators are looking at it") may become one: counsel and the records first.
      return situation.named.some((s) => LEGAL_EVENTS.some((e) => e.phrases?.test(s)))
        ? [COUNSEL_AND_RECORDS, ...plan]
        : plan;
    }
    case 'deal':
    case 'partnership':
      // A securities offering is said through its formal announcement, not amplified.
      return situation.event === 'deal' && OFFERING.test(eventSentence(situation))
        ? SITUATION_PLANS.offering
        : SITUATION_PLANS.deal;
  }
  if (type.polarity === 'adverse') return planFor(topics);
  return type.topic ? planFor([type.topic]) : PLAYBOOK.general!;
}

/**
 * A breach the brand itself confirms on record ("Globex said personal data of 2.3 million
 * customers was exposed"): the findings the data-privacy plan waits for are in, so its
 * steps are no longer conditional; a regulator the coverage says was told is kept informed,
 * not notified again.
 */
const breachOnRecord = (situation: Situation) =>
  situation.event === 'breach' &&
  situation.status === 'confirmed' &&
  situation.onRecord !== null &&
  EXPOSED.test(situation.onRecord);
const EXPOSED =
  /\b(?:was|were|had been|has been|have been) (?:exposed|stolen|leaked|compromised|accessed)\b|\bexposed (?:the )?(?:personal )?(?:data|records|information)\b/i;

function breachConfirmed(situation: Situation): Phase[] {
  const [contain] = PLAYBOOK['data-privacy']!;
  return [
    contain!,
    {
      title: 'Notify the authority and the people affected',
      owner: 'Legal',
      actions: [
        situation.regulatorTold
          ? 'Keep the data-protection authority informed as the review goes on: the coverage says it has been told'
          : 'Notify the data-protection authority within 72 hours of learning of the breach (GDPR art. 33)',
        'Prepare the notice to the people affected, as the law requires where the risk to them is high',
      ],
    },
    // Not "restate the line and add nothing new": the people whose data is out need
    // advice now (the fourteenth read of the demo's breach).
    PROTECT_NOW,
    {
      title: 'Support the people affected',
      owner: 'Customer support',
      actions: [
        'Open a help page and a contact line for the people affected',
        'Offer protection that fits the data exposed (credit monitoring for financial data)',
      ],
    },
    {
      ...MONITOR,
      actions: [
        'Track new coverage, and with security where the stolen data turns up, for four weeks',
        FOLLOW_UP,
      ],
    },
  ];
}
const PROTECT_NOW: Phase = {
  title: 'Tell them how to protect themselves',
  owner: 'Communications',
  actions: [
    'Publish now what the people affected should do: change passwords they use elsewhere, and watch for messages that use the stolen details',
    'Say what the company has done and when they will hear more, in words security and legal have approved',
  ],
};

/** Criticism that is customers complaining: "Customers complain about Acme's support delays". */
const customersComplain = (situation: Situation) =>
  !situation.opinion && COMPLAINTS.test(eventSentence(situation));
const COMPLAINTS =
  /\b(?:customers?|readers?|users?|passengers?|guests?|shoppers?|subscribers?|clients?|members?)\b[^.;]{0,60}?\bcomplain|\bcomplaints? (?:from|by) (?:customers|readers|users|passengers|guests|shoppers|subscribers|clients|members)\b/i;

/** The brand's own claim, named in the criticism: "Google promised 4K at 60fps". */
const OWN_CLAIM =
  /\b(?:promised|promises|claimed|claims|advertised|advertises|marketed|billed as|touted|pledged)\b/i;
const OWN_CLAIMS: Phase = {
  title: 'Review the claims made for the product',
  owner: 'Legal and marketing',
  actions: [
    'Review what the brand claimed (adverts, product pages) against what the product does',
    'Decide whether to pause or qualify a claim that does not hold, before it runs again',
  ],
};

/** Topics whose criticism says people are at risk: the product answers it. */
const SAFETY_TOPICS: ReadonlySet<string> = new Set(['product-safety', 'data-privacy', 'security']);

const LEGAL_EVENTS = EVENT_TYPES.filter(
  (e) => e.kind === 'lawsuit' || e.kind === 'regulator-action',
);
const COUNSEL_AND_RECORDS: Phase = {
  title: 'Brief counsel',
  owner: 'Legal',
  actions: ['Share the coverage with legal counsel', 'Preserve the relevant records'],
};

/** An outage by decision: a safety shutoff, planned works. */
const SHUTOFF =
  /\b(?:shut(?:s|ting)? off (?:the )?(?:power|gas|water|electricity)|(?:power|safety) shut-?offs?|planned (?:outage|maintenance|works)|scheduled (?:outage|maintenance)|precautionary (?:outage|shutdown))\b/i;

/** The sentence telling the situation's event says it was switched off by decision. */
export const byDecision = (situation: Situation) => SHUTOFF.test(eventSentence(situation));

/** Whether the situation gets the plan for a problem that is over. */
export const isPlanForResolved = (situation: Situation) =>
  situation.status === 'resolved' && OVER_WHEN_FIXED.has(situation.event);

/** Events that are over once fixed: a resolved one needs confirming, not a response. */
const OVER_WHEN_FIXED: ReadonlySet<string> = new Set([
  'outage',
  'defect',
  'security-flaw',
  'criticism',
  'labor-dispute',
]);

/** The "Do not" of a brand named only in passing (readFirst waits on it for a page unread). */
export const NOT_THE_SUBJECT =
  'Do not issue a statement: the brand is not the subject of this coverage';

/** The title of the phase listing the moves the facts make wrong. */
export const DO_NOT = 'Do not';

/**
 * When each phase is due, by the story's urgency, from the moment it is detected: the
 * first phases first, the later ones after them. A low-urgency story gets no deadlines.
 */
const DEADLINES: Record<'low' | 'medium' | 'high' | 'immediate', readonly string[]> = {
  immediate: ['within 1 hour', 'within 2 hours', 'within 4 hours', 'today'],
  high: ['within 2 hours', 'within 4 hours', 'today', 'within 24 hours'],
  medium: ['today', 'within 24 hours', 'within 48 hours', 'this week'],
  low: [],
};

/**
 * The plan as the advisory writes it: each phase's title says who leads it and by when,
 * "Brief counsel (Legal, within 2 hours)", so the team can assign it at a glance (the
 * spec's phase is a title and actions: the owner and deadline go in the title). The
 * "Do not" list is for everyone, all the time.
 */
export function scheduled(
  phases: readonly Phase[],
  urgency: keyof typeof DEADLINES,
): { title: string; actions: string[] }[] {
  const ladder = DEADLINES[urgency];
  let next = 0;
  return phases.map((p) => {
    if (!p.owner) return { title: p.title, actions: [...p.actions] };
    const when =
      ladder.length === 0
        ? null
        : p.ongoing
          ? 'ongoing'
          : ladder[Math.min(p.together && next > 0 ? next - 1 : next++, ladder.length - 1)];
    return { title: `${p.title} (${p.owner}${when ? `, ${when}` : ''})`, actions: [...p.actions] };
  });
}

/** The plan's steps each step the team reports done stands for, by their words. */
const DONE_ACTIONS: Record<DoneStep, RegExp> = {
  statement:
    /^(?:Draft a (?:factual )?statement|Draft a statement counsel approves|Find whether anyone has already answered|If nobody has, say the brand is aware)/,
  'notify-affected': /notice to the people affected|^Tell customers whether|reach them directly/,
  'notify-regulator':
    /^(?:Notify the product-safety authority|Inform the environmental authority)|notify the data-protection authority/,
  recall: /stop sales or recall/,
  counsel: /^Share the coverage with legal counsel/,
  staff:
    /^Brief (?:leadership and customer-facing staff|managers and staff|the leadership, candidates)/,
};

/**
 * The plan without the steps the team says it has taken ("we emailed every affected
 * customer on Monday"), and without a phase left with none; a statement already out is
 * held, not drafted again (as one the coverage quotes). Nothing says what the team said.
 */
export function withoutDone(phases: readonly Phase[], done: readonly DoneStep[]): Phase[] {
  if (done.length === 0) return [...phases];
  const taken = (action: string) => done.some((d) => DONE_ACTIONS[d].test(action));
  return phases
    .map((p) =>
      done.includes('statement') && p.title === HOLDING.title
        ? HOLD_POSITION
        : { ...p, actions: p.actions.filter((a) => !taken(a)) },
    )
    .filter((p) => p.actions.length > 0);
}

/**
 * A party's words for corporate steps: a campaign speaks through its director and its
 * spokespeople, and an "aware and looking into it" line or talk of compensation would be
 * ridiculed in a live campaign (a consultant's read).
 */
const FOR_PARTY: Record<string, string> = {
  [BRIEF_STAFF]:
    'Brief the leadership, candidates and spokespeople before their next public appearance',
  'If nobody has, say the brand is aware of the allegation and is looking into it, with legal sign-off':
    'If nobody has, agree the line with the campaign director before anyone speaks',
  'Do not apologise, offer compensation or admit fault before the review establishes the facts':
    'Do not apologise or concede before the campaign director agrees the line',
};

/** A brand that is a political party, by its name. */
const PARTY = /\b(?:party|parti|partei|partido|democrats|republicans|tories|labour)\b/i;

/**
 * The plan in the words of the organisation it is for: a political party briefs its
 * candidates and spokespeople, not "customer-facing staff" it does not have.
 */
export function forOrganisation(phases: readonly Phase[], brandName: string): Phase[] {
  if (!PARTY.test(brandName)) return [...phases];
  return phases.map((p) => ({
    ...p,
    // An allegation against a party is a campaign's to answer, counsel beside it.
    ...(p.title === 'Review the allegation' && { owner: 'Campaign director, with counsel' }),
    actions: p.actions.map((a) =>
      a.startsWith(BRIEF_STAFF) ? FOR_PARTY[BRIEF_STAFF]! : (FOR_PARTY[a] ?? a),
    ),
  }));
}

/**
 * The plan naming the organisation where its steps say "the brand" ("Establish with
 * counsel what the New York State Attorney General is asking of WeWork"): a plan written
 * for one client reads as one (a consultant's read: "the brand" throughout read as a
 * template).
 */
export function named<P extends { actions: string[] }>(phases: readonly P[], name: string): P[] {
  const who = name.trim() ? inProse(name.trim()) : '';
  if (!who) return [...phases];
  const upper = who[0]!.toUpperCase() + who.slice(1);
  return phases.map((p) => ({
    ...p,
    actions: p.actions.map((a) =>
      a.replace(/\bthe brand\b/g, who).replace(/\bThe brand\b/g, upper),
    ),
  }));
}

/** The plan with one more line in its "Do not" phase (made when it has none), four at most. */
export function withDoNot(phases: readonly Phase[], line: string): Phase[] {
  const avoid = phases.find((p) => p.title === DO_NOT);
  const lines = [...new Set([...(avoid?.actions ?? []), line])].slice(0, 4);
  return withDoNotLast([
    ...phases.filter((p) => p.title !== DO_NOT),
    { title: DO_NOT, actions: lines },
  ]);
}

/** A phase's title without its owner and deadline: the same phase whenever it is due. */
export const baseTitle = (title: string) => title.replace(/ \([^()]*\)$/, '');

/**
 * A plan with its "Do not" phase last, the ordinary phases before it cut to fit six in
 * all: a phase added to a plan (a proposal's, or a model's plan) never pushes it out.
 */
export function withDoNotLast(phases: readonly Phase[]): Phase[] {
  const avoid = phases.filter((p) => p.title === DO_NOT);
  const ordinary = phases.filter((p) => p.title !== DO_NOT);
  return [...ordinary.slice(0, MAX_PHASES - avoid.length), ...avoid];
}

/** The moves the facts make wrong, each with the reason, two or three at most. */
function doNot(situation: Situation, topics: readonly string[], aside: boolean): string[] {
  const out: string[] = [];
  const type = eventType(situation.event);
  if (aside) {
    out.push(NOT_THE_SUBJECT);
    return out;
  }
  if (type.polarity !== 'adverse') {
    // A listing or a share sale in progress: what is said of it may be a disclosure.
    if (situation.event === 'deal' && OFFERING.test(eventSentence(situation))) {
      out.push('Do not comment on the offer or its pricing before the formal announcement');
    }
    if (topics.some((t) => TOPICS_OF_INCIDENT.has(t))) {
      out.push(
        'Do not treat it as an incident: the coverage reports no adverse event for the brand',
      );
    }
    return out;
  }
  if (topics.includes('data-privacy') && situation.event !== 'breach') {
    out.push('Do not notify a regulator or customers of a breach: the coverage alleges none');
  }
  if (situation.status === 'denied') {
    out.push('Do not apologise or offer remedies for what the facts do not show');
  }
  if (situation.status === 'resolved' && situation.event === 'accusation') {
    out.push('Do not reopen the row: no comment on what the other side said before it ended');
  }
  if (situation.event === 'criticism' && topics.some((t) => SAFETY_TOPICS.has(t))) {
    out.push(
      'Do not dispute a safety concern in public: answer it with what the brand is changing',
    );
  } else if (situation.event === 'criticism' && customersComplain(situation)) {
    out.push('Do not dispute customers’ experience in public: answer with what is being fixed');
  } else if (situation.event === 'criticism') {
    out.push('Do not argue with opinion in public: answer only the facts that are wrong');
  } else if (situation.status === 'alleged') {
    out.push(
      'Do not apologise, offer compensation or admit fault before the review establishes the facts',
    );
    // Holding a line already given is no rebuttal: silence would contradict it.
    out.push(
      'Do not go beyond what is already on record, or rebut the coverage, before the internal review is done',
    );
  }
  if (situation.event === 'breach' && situation.status !== 'confirmed') {
    out.push('Do not say whether data was exposed until security has established it');
  }
  if (recallUnderWay(situation)) {
    out.push('Do not play down the hazard or the injuries: say what the recall notice says');
  }
  if (breachOnRecord(situation)) {
    out.push(
      'Do not play down how many people are affected, or guess at the cause, before security’s review',
    );
  }
  if (
    situation.event === 'lawsuit' ||
    situation.event === 'regulator-action' ||
    (recallUnderWay(situation) && topics.includes('legal-regulatory'))
  ) {
    out.push(MERITS);
  }
  if (situation.opinion) {
    out.push('Do not attack the author: answer facts with facts');
  }
  return [...new Set(out)].slice(0, 3);
}

const MERITS = 'Do not comment on the merits or the other party before counsel agrees the words';

/** A securities offering: a listing, a share sale, a bond issue. */
const OFFERING =
  /\b(?:listing|ipo|initial public offering|share (?:sale|offering)|offering of shares|bond (?:issue|sale)|raise (?:up to )?\$?[\d.,]+\s?(?:bn|billion|m|million))\b/i;

/** Topics whose plans would treat the story as an incident. */
const TOPICS_OF_INCIDENT: ReadonlySet<string> = new Set([
  'product-safety',
  'data-privacy',
  'security',
  'legal-regulatory',
  'environment',
]);

/** The plan for a story with these topics (in taxonomy order). */
export function planFor(topics: readonly string[]): Phase[] {
  for (const t of topics) {
    const plan = PLAYBOOK[t];
    if (plan) return plan;
  }
  return PLAYBOOK.general!;
}
