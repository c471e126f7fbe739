/**
 * The response plans of the built-in generator, one per topic (docs/pipeline.md,
 * "Playbook"). A story gets the plan of its riskiest topic: the first of its topics in
 * taxonomy order. Each plan has three to five phases of short imperative actions, which
 * leaves room for the phase a proposal adds (six at most).
 */

import { eventType } from './events.js';
import { ownsStory, type Situation } from './situation.js';
import { CONSTRAINT_DO_NOT, type Constraint } from './team-context.js';

/** Phases a plan holds at most. */
export const MAX_PHASES = 6;

export interface Phase {
  title: string;
  actions: string[];
}

const FACTS: Phase = {
  title: 'Establish the facts',
  actions: [
    'Confirm what happened with the owning team',
    'Collect every claim made in the coverage',
  ],
};
const HOLDING: Phase = {
  title: 'Prepare a holding statement',
  actions: ['Draft a factual statement', 'Get legal and communications sign-off'],
};
/**
 * A statement goes to publishers who ask; it is sent out unasked only when the story is
 * high or critical (planOf): sending one about a smaller story makes it bigger.
 */
const ANSWER_WHEN_ASKED = 'When publishers ask, answer with the approved statement';
const SEND_STATEMENT = 'Send the approved statement to the publishers covering the story';
const BRIEF: Phase = {
  title: 'Brief stakeholders',
  actions: ['Brief leadership and customer-facing staff', ANSWER_WHEN_ASKED],
};
const MONITOR: Phase = {
  title: 'Monitor and follow up',
  actions: ['Track new coverage for 72 hours', 'Publish an update when facts change'],
};

export const PLAYBOOK: Record<string, Phase[]> = {
  'product-safety': [
    FACTS,
    {
      title: 'Protect customers',
      actions: [
        'If the defect is confirmed, decide with quality and legal whether to stop sales or recall',
        'Publish clear safety instructions for owners of the product',
      ],
    },
    HOLDING,
    {
      title: 'Inform regulators and partners',
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
      actions: [
        'Confirm with security what is affected and whether the attack or flaw is closed',
        'Preserve the evidence',
      ],
    },
    {
      title: 'Protect customers',
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
      actions: [
        'If the review confirms personal data was exposed, notify the data-protection authority within 72 hours of learning it (GDPR art. 33)',
        'If it was, prepare the notice to the people affected',
      ],
    },
    HOLDING,
    {
      title: 'Support the people affected, if any',
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
      actions: ['Share the coverage with legal counsel', 'Agree what may be said in public'],
    },
    {
      title: 'Prepare a holding statement',
      actions: ['Draft a statement counsel approves', 'Avoid commenting on the merits'],
    },
    BRIEF,
    MONITOR,
  ],
  labor: [
    FACTS,
    {
      title: 'Talk to employees first',
      actions: [
        'Brief managers and staff before any public statement',
        'Open a channel for employee questions',
      ],
    },
    HOLDING,
    MONITOR,
  ],
  environment: [
    FACTS,
    {
      title: 'Limit the impact',
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
      actions: ['Quantify affected customers with support', 'Find the root cause'],
    },
    {
      title: 'Respond to customers',
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
      actions: ['Agree the leadership message with the board', 'Prepare a Q&A'],
    },
    {
      title: 'Brief stakeholders',
      actions: ['Brief employees, investors and key customers'],
    },
    MONITOR,
  ],
  financial: [
    {
      title: 'Check the numbers',
      actions: ['Verify the reported figures with finance', 'Note any disclosure obligations'],
    },
    {
      title: 'Brief investor relations',
      actions: ['Align investor relations and communications on the message'],
    },
    MONITOR,
  ],
  'product-launch': [
    { title: 'Verify the coverage', actions: ['Check the facts reported are accurate'] },
    { title: 'Amplify', actions: ['Share the coverage on owned channels', 'Thank the publisher'] },
    { title: 'Follow up', actions: ['Offer the journalist a follow-up interview'] },
  ],
  recognition: [
    { title: 'Verify the coverage', actions: ['Check the facts reported are accurate'] },
    {
      title: 'Amplify',
      actions: ['Share the recognition on owned channels', 'Thank the people behind it'],
    },
    { title: 'Follow up', actions: ['Offer the journalist a follow-up interview'] },
  ],
  general: [
    { title: 'Read the coverage', actions: ['Check the facts reported are accurate'] },
    {
      title: 'Decide whether to respond',
      actions: [
        'If the coverage gets a fact wrong, ask the publisher to correct it',
        'Otherwise, no response is needed',
      ],
    },
    { title: 'Monitor', actions: ['Watch for follow-up coverage for a week'] },
  ],
};

const BRIEF_LEADERSHIP: Phase = {
  title: 'Brief leadership',
  actions: ['Share the piece and the facts checked with leadership'],
};

/** Plans the situation calls for before any topic's (planOf). */
const SITUATION_PLANS = {
  /** The brand is named in passing, as a source, or in the page's furniture. */
  aside: [
    {
      title: 'Read the mention',
      actions: ['Check the brand is named accurately', 'Note the context it is named in'],
    },
    {
      title: 'Decide whether it needs anything',
      actions: [
        'If the mention states a fact about the brand that is wrong, ask the publisher to correct it',
        'Otherwise, no response is needed',
      ],
    },
    {
      title: 'Monitor',
      actions: ['Watch for follow-up coverage that puts the brand at the centre'],
    },
  ],
  opinion: [
    {
      title: 'Read the argument',
      actions: [
        'List what the piece says about the brand, telling fact from opinion',
        'Check each stated fact with the owning team',
      ],
    },
    {
      title: 'Decide whether to answer',
      actions: [
        'If the piece states facts that are wrong, offer the publisher a short factual reply',
        'Otherwise let the opinion stand',
      ],
    },
    BRIEF_LEADERSHIP,
    { title: 'Monitor', actions: ['Watch whether other titles take the argument up'] },
  ],
  review: [
    {
      title: 'Read the review',
      actions: [
        'Share its findings with the product team',
        'Check the facts it states about the product',
      ],
    },
    {
      title: 'Respond where it helps',
      actions: [
        'If the review states a fact that is wrong, send the reviewer the correction',
        'If it is favourable, share it on owned channels',
      ],
    },
    { title: 'Monitor', actions: ['Watch for other reviews of the same product'] },
  ],
  accusation: [
    {
      title: 'Review the allegation',
      actions: [
        'Establish internally, with the owning team and counsel, what is alleged and what is true',
        'Preserve the relevant records',
      ],
    },
    {
      title: 'Prepare a holding statement',
      actions: [
        'Say the brand is aware of the allegation and is reviewing it',
        'Get legal and communications sign-off',
      ],
    },
    BRIEF,
    MONITOR,
  ],
  accusationAnswered: [
    {
      title: 'Review the allegation',
      actions: [
        'Establish internally, with the owning team and counsel, what is alleged and what is true',
        'Preserve the relevant records',
      ],
    },
    {
      title: 'Hold the position on record',
      actions: [
        'Restate what the brand has already said; add nothing new before the review ends',
        'Agree with legal and communications any change to it before it is made',
      ],
    },
    BRIEF,
    MONITOR,
  ],
  criticism: [
    {
      title: 'Understand the criticism',
      actions: [
        'List the complaints made and who makes them',
        'Check with the owning team which are fair',
      ],
    },
    {
      title: 'Respond where it is fair',
      actions: [
        'If the criticism points to a real problem, say what the brand will do about it',
        'If it rests on a factual error, send the publisher the correction with the evidence',
      ],
    },
    MONITOR,
  ],
  deal: [
    { title: 'Verify the coverage', actions: ['Check the terms reported are accurate'] },
    {
      title: 'Amplify',
      actions: [
        'Once the terms are final and public, share them on owned channels as legal and investor relations approve',
        'Brief employees and partners',
      ],
    },
    {
      // A listing, an acquisition or a contract may be under disclosure rules: what is
      // said about it goes through the people who know them.
      title: 'Follow up',
      actions: ['Route interview requests through legal and investor relations first'],
    },
  ],
  /** A problem the coverage reports as over: confirm it, answer when asked, no more. */
  resolved: [
    {
      title: 'Confirm it is over',
      actions: [
        'Check with the owning team that the problem is closed and will not recur',
        'Note what customers were told, and when',
      ],
    },
    {
      title: 'Answer only when asked',
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
 * is; otherwise the plan of its riskiest topic.
 * A short "Do not" phase follows when the facts make an obvious move wrong.
 */
export function planOf(
  situation: Situation,
  topics: readonly string[],
  constraints: readonly Constraint[] = [],
  severity: 'low' | 'medium' | 'high' | 'critical' = 'medium',
): Phase[] {
  const aside = !ownsStory(situation.role);
  const base = aside ? SITUATION_PLANS.aside : basePlan(situation, topics);
  const serious = severity === 'high' || severity === 'critical';
  const plan =
    serious && base.some((p) => p.actions.includes(ANSWER_WHEN_ASKED))
      ? base.map((p) => ({
          ...p,
          actions: p.actions.map((a) => (a === ANSWER_WHEN_ASKED ? SEND_STATEMENT : a)),
        }))
      : base;
  // Counsel's advice, when the team reports it, says what the merits line would.
  const own = doNot(situation, topics, aside).filter(
    (line) => !(constraints.includes('legal') && line === MERITS),
  );
  const avoid = [...new Set([...constraints.map((c) => CONSTRAINT_DO_NOT[c]), ...own])].slice(0, 4);
  return avoid.length > 0 ? [...plan, { title: DO_NOT, actions: avoid }] : plan;
}

/** The plan of a situation that is the brand's own story (planOf), before its "Do not". */
function basePlan(situation: Situation, topics: readonly string[]): Phase[] {
  const type = eventType(situation.event);
  if (situation.opinion && type.weight < 3) return SITUATION_PLANS.opinion;
  if (isPlanForResolved(situation)) return SITUATION_PLANS.resolved;
  switch (situation.event) {
    case 'review':
      return SITUATION_PLANS.review;
    case 'accusation':
      // A position already given is held, not replaced by an "aware and reviewing" line
      // that would read as a change of course.
      return situation.onRecord ? SITUATION_PLANS.accusationAnswered : SITUATION_PLANS.accusation;
    case 'criticism':
      return SITUATION_PLANS.criticism;
    case 'deal':
    case 'partnership':
      return SITUATION_PLANS.deal;
  }
  if (type.polarity === 'adverse') return planFor(topics);
  return type.topic ? planFor([type.topic]) : PLAYBOOK.general!;
}

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

/** The title of the phase listing the moves the facts make wrong. */
export const DO_NOT = 'Do not';

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
    out.push('Do not issue a statement: the brand is not the subject of this coverage');
    return out;
  }
  if (type.polarity !== 'adverse') {
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
  if (situation.event === 'criticism') {
    out.push('Do not argue with opinion in public: answer only the facts that are wrong');
  } else if (situation.status === 'alleged') {
    out.push(
      'Do not apologise, offer compensation or admit fault before the review establishes the facts',
    );
    out.push('Do not rebut the coverage in public before the internal review is done');
  }
  if (situation.event === 'breach' && situation.status !== 'confirmed') {
    out.push('Do not say whether data was exposed until security has established it');
  }
  if (situation.event === 'lawsuit' || situation.event === 'regulator-action') {
    out.push(MERITS);
  }
  if (situation.opinion) {
    out.push('Do not attack the author: answer facts with facts');
  }
  return [...new Set(out)].slice(0, 3);
}

const MERITS = 'Do not comment on the merits or the other party before counsel agrees the words';

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
