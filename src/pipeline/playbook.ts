/**
 * The response plans of the built-in generator, one per topic (docs/pipeline.md,
 * "Playbook"). A story gets the plan of its riskiest topic: the first of its topics in
 * taxonomy order. Each plan has three to five phases of short imperative actions, which
 * leaves room for the phase a proposal adds (six at most).
 */

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
const BRIEF: Phase = {
  title: 'Brief stakeholders',
  actions: [
    'Brief leadership and customer-facing staff',
    'Answer the publishers with the statement',
  ],
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
        'Offer protection that fits what was exposed (credit monitoring for financial data)',
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
        'Give support a script and a remedy',
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
      actions: ['Correct factual errors with the publisher', 'Otherwise, no response is needed'],
    },
    { title: 'Monitor', actions: ['Watch for follow-up coverage for a week'] },
  ],
};

/** The plan for a story with these topics (in taxonomy order). */
export function planFor(topics: readonly string[]): Phase[] {
  for (const t of topics) {
    const plan = PLAYBOOK[t];
    if (plan) return plan;
  }
  return PLAYBOOK.general!;
}
