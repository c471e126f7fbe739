import { describe, expect, it } from 'vitest';
import { ASSESSMENTS, generateAdvisory, URGENCIES } from '../../src/pipeline/builtin-advisor.js';
import { baseTitle, DO_NOT } from '../../src/pipeline/playbook.js';
import {
  type LivePlan,
  quotesContext,
  rethinkAdvisory,
  withStartedPhases,
} from '../../src/pipeline/rethink.js';
import { source } from '../support/source.js';

const acme = { host: 'acme.com', name: 'Acme' };
// A recall ordered, not yet run by the brand (one it runs is planned as under way).
const recall = [
  source(
    1,
    'Regulators order Acme kettle recall after injuries',
    'Regulators ordered Acme to recall 40,000 kettles after customers were injured by a faulty switch, and opened an investigation.',
  ),
  source(
    2,
    'Injuries prompt Acme kettle recall',
    'Acme kettles were recalled after reports of burns and injuries.',
  ),
];

/** The live plan of a story: its built-in advisory, with the phases given started. */
function liveOf(sources: typeof recall, started: number[] = []): LivePlan {
  const g = generateAdvisory(sources, acme);
  return {
    assessment: g.assessment,
    urgency: g.urgency,
    phases: g.phases.map((p, i) => ({ number: i + 1, ...p, started: started.includes(i + 1) })),
  };
}

/** An assessment's place on the scale (opportunity stands apart: -1). */
const assessmentLevel = (assessment: string) =>
  (ASSESSMENTS as readonly string[]).indexOf(assessment);

/** The proposal a context makes of a story whose live plan is its built-in advisory. */
const propose = (sources: typeof recall, context: string, started: number[] = []) =>
  rethinkAdvisory({ sources, context, brand: acme, live: liveOf(sources, started) });

describe('proposals that rethink (built-in)', () => {
  it('context that eases the story lowers assessment and urgency a step', () => {
    const live = liveOf(recall);
    const p = rethinkAdvisory({
      sources: recall,
      context: 'Nobody was hurt: the reports were unconfirmed, and the recall is voluntary.',
      brand: acme,
      live,
    });
    const before = generateAdvisory(recall, acme);
    expect(before.assessment).toBe('crisis');
    expect(p.assessment).toBe('threat');
    expect(['low', 'medium', 'high', 'immediate'].indexOf(p.urgency)).toBe(
      ['low', 'medium', 'high', 'immediate'].indexOf(before.urgency) - 1,
    );
    expect(p.phases.map((ph) => baseTitle(ph.title))).toContain('Correct the record');
    // The context is the team's private knowledge: it moves the judgement, and no word of
    // it reaches the summary or the plan, which shares show.
    const written = [
      ...p.executiveSummary.map((i) => i.text),
      ...p.phases.flatMap((ph) => [ph.title, ...ph.actions]),
    ];
    expect(quotesContext(written, 'Nobody was hurt: the reports were unconfirmed')).toBe(false);
    expect(written.join(' ')).not.toContain('unconfirmed');
    // Every sentence cites the story's sources only, and the basis is what it cites.
    for (const item of p.executiveSummary) {
      expect(item.cites.length).toBeGreaterThan(0);
      for (const c of item.cites) expect(['s1', 's2']).toContain(c);
    }
    expect([...p.summaryBasis].sort()).toEqual(
      [...new Set(p.executiveSummary.flatMap((i) => i.cites))].sort(),
    );
  });

  it('context that reveals worse raises them', () => {
    const mild = [
      source(1, 'Acme kettles delayed', 'Deliveries of Acme kettles were delayed by a week.'),
    ];
    const before = generateAdvisory(mild, acme);
    const p = rethinkAdvisory({
      sources: mild,
      context:
        'A customer has filed a lawsuit over injuries and the regulator opened an investigation.',
      brand: acme,
      live: liveOf(mild),
    });
    expect(['informational', 'watch', 'threat', 'crisis'].indexOf(p.assessment)).toBe(
      ['informational', 'watch', 'threat', 'crisis'].indexOf(before.assessment) + 1,
    );
    // The worse news's first step: a lawsuit over injuries calls for the facts or counsel.
    expect(p.phases.map((ph) => baseTitle(ph.title))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^(?:Establish the facts|Brief counsel)$/)]),
    );
  });

  it('a context that denies an incident eases it, whatever alarming words it denies', () => {
    const breach = [
      source(
        1,
        'Acme accused of a data breach',
        'A blogger claims Acme suffered a data breach and that customer records were stolen. Regulators were alerted.',
      ),
    ];
    const before = generateAdvisory(breach, acme);
    const urgencies = ['low', 'medium', 'high', 'immediate'];
    for (const context of [
      'This is not a security incident: no system was breached and no data was accessed.',
      'Our systems were not breached.',
    ]) {
      const p = rethinkAdvisory({ sources: breach, context, brand: acme, live: liveOf(breach) });
      expect(urgencies.indexOf(p.urgency), context).toBe(
        Math.max(0, urgencies.indexOf(before.urgency) - 1),
      );
      expect(
        p.phases.map((ph) => baseTitle(ph.title)),
        context,
      ).toContain('Correct the record');
    }
    // A denial of something the coverage does not say eases nothing.
    const layoffs = [
      source(
        1,
        'Acme lays off staff',
        'Acme is laying off 300 employees, staff were told on Monday.',
      ),
    ];
    const unrelated = rethinkAdvisory({
      sources: layoffs,
      context: 'This is not a security incident: no system was breached.',
      brand: acme,
      live: liveOf(layoffs),
    });
    expect(unrelated.urgency).toBe(generateAdvisory(layoffs, acme).urgency);
    expect(unrelated.phases.map((ph) => baseTitle(ph.title))).not.toContain('Correct the record');
    // Worse news beside a reassurance still raises it.
    const mild = [source(1, 'Acme kettles delayed', 'Deliveries of Acme kettles were delayed.')];
    const worse = rethinkAdvisory({
      sources: mild,
      context: 'Nobody was hurt. A regulator opened an investigation and a lawsuit was filed.',
      brand: acme,
      live: liveOf(mild),
    });
    expect(worse.phases.map((ph) => baseTitle(ph.title))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^(?:Establish the facts|Brief counsel)$/)]),
    );
    expect(urgencies.indexOf(worse.urgency)).toBeGreaterThan(
      urgencies.indexOf(generateAdvisory(mild, acme).urgency),
    );
  });

  it('contexts accumulate: an earlier one still counts, each moves a step, two at most', () => {
    const before = generateAdvisory(recall, acme);
    const urgencies = ['low', 'medium', 'high', 'immediate'];
    const at = (u: string) => urgencies.indexOf(u);
    const eased = 'Nobody was hurt: the reports were unconfirmed.';
    // A neutral context after an easing one: the easing still holds.
    const later = rethinkAdvisory({
      sources: recall,
      earlier: [eased],
      context: 'We are preparing a statement.',
      brand: acme,
      live: liveOf(recall),
    });
    expect(at(later.urgency)).toBe(Math.max(0, at(before.urgency) - 1));
    // Two easing contexts, two steps; three, still two.
    const twice = rethinkAdvisory({
      sources: recall,
      earlier: [eased],
      context: 'The recall is voluntary and precautionary.',
      brand: acme,
      live: liveOf(recall),
    });
    expect(at(twice.urgency)).toBe(Math.max(0, at(before.urgency) - 2));
    const thrice = rethinkAdvisory({
      sources: recall,
      earlier: [eased, 'The defect was fixed.'],
      context: 'The recall is voluntary and precautionary.',
      brand: acme,
      live: liveOf(recall),
    });
    expect(thrice.urgency).toBe(twice.urgency);
  });

  it('recomputes the spread from the sources as they are now', () => {
    const many = ['A', 'B', 'C', 'D'].map((pub, i) =>
      source(i + 1, 'Acme recall', 'Acme recalls kettles over a defect.', pub),
    );
    const p = rethinkAdvisory({
      sources: many,
      context: 'We are on it.',
      brand: acme,
      live: liveOf(recall),
    });
    expect(p.spread).toBe('widespread');
  });

  it('keeps started phases verbatim at their numbers, and does not repeat them', () => {
    const live = liveOf(recall, [1, 3]);
    const p = rethinkAdvisory({
      sources: recall,
      context: 'The defect was fixed last month.',
      brand: acme,
      live,
    });
    expect(p.phases[0]).toEqual({ title: live.phases[0]!.title, actions: live.phases[0]!.actions });
    expect(p.phases[2]).toEqual({ title: live.phases[2]!.title, actions: live.phases[2]!.actions });
    const titles = p.phases.map((ph) => baseTitle(ph.title));
    expect(new Set(titles).size).toBe(titles.length);
    expect(p.phases.length).toBeLessThanOrEqual(6);
  });

  it('withStartedPhases places a started phase beyond the fresh plan after it', () => {
    const g = generateAdvisory(recall, acme);
    const out = withStartedPhases(
      { ...g, phases: [{ title: 'A', actions: ['a'] }] },
      {
        assessment: null,
        urgency: null,
        phases: [
          { number: 1, title: 'Old 1', actions: ['x'], started: false },
          { number: 2, title: 'Kept', actions: ['k'], started: true },
        ],
      },
    );
    expect(out.phases).toEqual([
      { title: 'A', actions: ['a'] },
      { title: 'Kept', actions: ['k'] },
    ]);
  });
});

describe('steps the team says it has taken (issue 42)', () => {
  const steps = (g: { phases: { actions: string[] }[] }) => g.phases.flatMap((p) => p.actions);

  it('leave the plan, and a statement already out is held rather than drafted again', () => {
    const before = generateAdvisory(recall, acme);
    expect(steps(before)).toContain('Brief retailers, distributors and customer-facing staff');
    expect(steps(before).some((a) => /stop sales or recall/.test(a))).toBe(true);
    expect(steps(before)).toContain('Draft a factual statement');
    const p = propose(
      recall,
      'We have already recalled the kettles from every shop and we issued a statement on Monday. We notified the product-safety regulator on Tuesday.',
    );
    const after = steps(p);
    expect(after.some((a) => /stop sales or recall/.test(a))).toBe(false);
    expect(after).not.toContain('Notify the product-safety authority where the law requires it');
    expect(after).not.toContain('Draft a factual statement');
    expect(p.phases.map((ph) => baseTitle(ph.title))).toContain('Hold the position on record');
    // What is not said done stays.
    expect(after).toContain('Publish clear safety instructions for owners of the product');
    // No word of the context.
    expect(quotesContext(after, 'recalled the kettles from every shop')).toBe(false);
  });

  it('a context that reports nothing done leaves every step', () => {
    const p = propose(recall, 'The supplier of the switch is Betacorp.');
    expect(steps(p)).toContain('Draft a factual statement');
  });
});

describe('worse news the team reports (issue 42)', () => {
  it('brings in the step it calls for: counsel for a regulator’s inquiry on a story of criticism', () => {
    const review = [
      source(
        1,
        'Acme kettle falls short of its claims',
        'Reviewers criticised the Acme kettle, which falls short of the boiling times Acme advertised.',
      ),
    ];
    const p = propose(
      review,
      'The regulator has opened an investigation into the advertising claims, and a class action is being prepared.',
    );
    // Counsel first; the team works from its context next, before any public answer.
    expect(p.phases.map((ph) => baseTitle(ph.title)).slice(0, 2)).toEqual([
      'Brief counsel',
      'Brief the team on the new context',
    ]);
  });
});

describe('contexts a consultant would read with care (issue 42, third review)', () => {
  const titles = (g: { phases: { title: string }[] }) => g.phases.map((p) => baseTitle(p.title));
  const review = [
    source(
      1,
      'Acme kettle falls short of its claims',
      'Reviewers criticised the Acme kettle, which falls short of the boiling times Acme advertised.',
    ),
  ];

  it('puts counsel first on legal trouble coming, with nothing said on the merits', () => {
    const p = propose(
      review,
      'The regulator has opened an investigation into the advertising claims, and a class action is being prepared.',
    );
    expect(titles(p)[0]).toBe('Brief counsel');
    expect(p.phases.at(-1)!.actions).toContain(
      'Do not say anything in public on a legal matter without counsel',
    );
  });

  it('settles with the party the team says is responsible instead of correcting the record', () => {
    const p = propose(recall, 'This is not about us: the recall decision was made by Betacorp.');
    expect(titles(p)).toContain('Settle it with the party concerned');
    expect(titles(p)).not.toContain('Correct the record');
    expect(p.phases.at(-1)!.actions).toContain(
      'Do not name anyone else as responsible in public: settle it with them directly',
    );
    // "Say only what Acme did and did not do" would pin it on the other party in public.
    const settle = p.phases.find(
      (ph) => baseTitle(ph.title) === 'Settle it with the party concerned',
    );
    expect(settle!.actions).toContain(
      'If publishers ask, hold the line already on record, and say nothing new until Acme and the party concerned have agreed it',
    );
    expect(settle!.actions.join(' ')).not.toMatch(/did and did not do/);
  });

  it('corrects the record only when the context says the coverage is wrong, not when it adds mitigation', () => {
    const eased = propose(recall, 'Every affected customer has been offered a voluntary refund.');
    expect(titles(eased)).not.toContain('Correct the record');
    const wrong = propose(recall, 'The reports of injuries are false: nobody was hurt.');
    expect(titles(wrong)).toContain('Correct the record');
  });

  it('routes what the team knows of results to investor relations and legal first', () => {
    const results = [
      source(
        1,
        'Acme cuts its outlook',
        'Acme shares fell after the company cut its full-year sales guidance.',
      ),
    ];
    const p = propose(results, 'Guidance was cut because a systems migration ran late.');
    expect(p.phases.flatMap((ph) => ph.actions)).toContain(
      'Share the context with investor relations and legal first: they decide what may be said, and to whom',
    );
  });
});

describe('a started phase under a new deadline', () => {
  it('is the same phase: kept verbatim, not planned a second time', () => {
    const g = generateAdvisory(recall, acme);
    const first = g.phases[0]!;
    const out = withStartedPhases(
      {
        ...g,
        phases: [
          { ...first, title: `${baseTitle(first.title)} (Communications, today)` },
          ...g.phases.slice(1),
        ],
      },
      {
        assessment: null,
        urgency: null,
        phases: [{ number: 1, title: first.title, actions: first.actions, started: true }],
      },
    );
    expect(out.phases[0]!.title).toBe(first.title);
    const bases = out.phases.map((p) => baseTitle(p.title));
    expect(bases.filter((t) => t === baseTitle(first.title))).toHaveLength(1);
  });
});

describe('the private context, checked in what a model writes', () => {
  it('finds five of its words in a row, whatever the case and punctuation, and nothing less', () => {
    const context = 'Legal advises no admission of liability before the review.';
    expect(quotesContext(['Legal advises NO admission, of liability.'], context)).toBe(true);
    expect(
      quotesContext(['Act on it.', 'No admission of liability before the review'], context),
    ).toBe(true);
    expect(quotesContext(['Prepare the review with legal counsel.'], context)).toBe(false);
    expect(quotesContext(['The recall was resolved today.'], 'Recall was resolved.')).toBe(true);
    expect(quotesContext(['The recall was resolved.'], 'Resolved.')).toBe(false);
    expect(quotesContext(['Anything.'], '')).toBe(false);
  });
});

describe('what a context says, read into the situation (issue 42)', () => {
  const breach = [
    source(
      1,
      'Acme accused of a data breach',
      'A blogger claims Acme suffered a data breach and that customer records were stolen.',
    ),
  ];

  it('“this is not about us” eases the story', () => {
    const before = generateAdvisory(breach, acme);
    const p = propose(
      breach,
      'This is not about us: the blogger confused us with another company.',
    );
    expect(URGENCIES.indexOf(p.urgency)).toBe(Math.max(0, URGENCIES.indexOf(before.urgency) - 1));
    expect(p.contextEffect).toBe('the team’s context denies what the coverage reports');
  });

  it('turns the team’s constraints into the plan’s “Do not”, without their words', () => {
    const context = 'Legal advises no admission of liability. The regulator has been notified.';
    const p = propose(breach, context);
    const avoid = p.phases.at(-1)!;
    expect(avoid.title).toBe('Do not');
    expect(avoid.actions).toEqual(
      expect.arrayContaining([
        'Do not say anything in public on a legal matter without counsel',
        'Do not say anything in public about an official process without counsel',
      ]),
    );
    expect(p.phases.length).toBeLessThanOrEqual(6);
    const written = p.phases.flatMap((ph) => [ph.title, ...ph.actions]);
    expect(quotesContext(written, context)).toBe(false);
  });

  it('a denial of the event ends the advice to apologise, and says why the judgement moved', () => {
    const p = propose(breach, 'Our systems were not breached.');
    expect(p.phases.flatMap((ph) => ph.actions).join(' ')).not.toMatch(/\bapologi[sz]e\b(?! or)/);
    expect(p.phases.at(-1)!.actions).toContain(
      'Do not apologise or offer remedies for what the facts do not show',
    );
    expect(p.contextEffect).toBe('the team’s context denies what the coverage reports');
    // A new story has no context, and no effect of one.
    expect(generateAdvisory(breach, acme).contextEffect).toBeNull();
  });
});

describe('a context saying the problem is over', () => {
  it('resolves the story: the plan for a problem that is over, once, and no "Do not apologise" for what happened', () => {
    const outage = [
      source(
        1,
        'Acme app outage leaves customers locked out',
        'An outage of the Acme app left customers locked out of their accounts for six hours on Monday.',
      ),
    ];
    const before = generateAdvisory(outage, acme);
    const p = propose(
      outage,
      'The fix shipped on Monday night and service was restored for everyone.',
    );
    expect(p.contextEffect).toBe('the team’s context says the problem is resolved');
    expect(assessmentLevel(p.assessment)).toBe(Math.max(0, assessmentLevel(before.assessment) - 1));
    // An outage the team reports fixed gets the plan for a problem that is over, once.
    const titles = p.phases.map((ph) => baseTitle(ph.title));
    expect(titles).toContain('Confirm it is over');
    expect(p.phases.flatMap((ph) => ph.actions)).toContain(
      'If those affected have not been told it is over, tell them directly, through the channel that told them of it',
    );
    expect(titles).not.toContain('Say it is fixed');
    expect(p.phases.flatMap((ph) => ph.actions)).not.toContain(
      'Do not apologise or offer remedies for what the facts do not show',
    );
  });
});

describe('worse news the team knows is coming', () => {
  it('raises the story, whatever its words weigh', () => {
    const claim = [
      source(
        1,
        'Acme accused of misleading voters',
        'Acme was accused of misleading customers with a renamed account.',
      ),
    ];
    const before = generateAdvisory(claim, acme);
    const p = propose(claim, 'A second complaint, about an edited video, is coming this week.');
    expect(assessmentLevel(p.assessment)).toBe(assessmentLevel(before.assessment) + 1);
    expect(p.contextEffect).toBe('the team’s context reports worse than the coverage');
  });
});

describe('reading a context (review of issue 42)', () => {
  const claim = [
    source(1, 'Acme accused of misleading buyers', 'Acme was accused of misleading buyers.'),
  ];
  const proposeOn = (context: string) => propose(claim, context);

  it('the team’s own plans are no worse news; a contraction still denies; a lifted embargo is none', () => {
    expect(proposeOn('We will publish a statement tomorrow morning.').contextEffect).toBeNull();
    expect(proposeOn('This isn’t about us: the buyers confused two brands.').contextEffect).toBe(
      'the team’s context denies what the coverage reports',
    );
    const lifted = proposeOn('Nothing is embargoed any more; legal says we can talk freely.');
    expect(lifted.phases.flatMap((p) => p.actions)).not.toContain(
      'Do not announce anything beyond what is already public',
    );
    expect(lifted.phases.flatMap((p) => p.actions)).not.toContain(
      'Do not say anything in public on a legal matter without counsel',
    );
  });

  it('keeps the “Do not” list last when a started phase comes back', () => {
    const breach = [
      source(1, 'Acme accused of a data breach', 'A blogger claims Acme suffered a data breach.'),
    ];
    const p = propose(breach, 'Our systems were not breached.', [1, 2, 3, 4, 5]);
    expect(p.phases.length).toBeLessThanOrEqual(6);
    expect(p.phases.at(-1)!.title).toBe('Do not');
  });
});

describe('the team’s word and the coverage (issue 42, fourth session)', () => {
  it('eases a high story at most to watch: the coverage is still out there', () => {
    const sued = [
      source(
        1,
        'Attorney general sues Acme over hidden fees',
        'The state attorney general sued Acme on Monday, alleging the company misled customers over hidden fees.',
      ),
    ];
    expect(generateAdvisory(sued, acme)).toMatchObject({ severity: 'high', assessment: 'threat' });
    const eased = generateAdvisory(sued, acme, [
      'The reports are false: we charge no hidden fees.',
      'The fees were disclosed; the claims are wrong.',
    ]);
    expect(eased).toMatchObject({ assessment: 'watch', urgency: 'medium' });
  });

  it('keeps a medium story under watch when the team eases it without denying it or calling it over', () => {
    const cuts = [
      source(
        1,
        'Acme to cut 400 jobs',
        'Acme will cut 400 jobs at its Leeds plant, the company told staff on Monday.',
      ),
    ];
    const before = generateAdvisory(cuts, acme);
    expect(before).toMatchObject({ severity: 'medium', assessment: 'watch' });
    const eased = propose(
      cuts,
      'Severance terms were agreed with every employee affected; the first 200 departures are voluntary.',
    );
    expect(eased.assessment).toBe('watch');
    expect(eased.contextEffect).toBe(
      'the team’s context eases the story, but the coverage still reports it: it stays under watch',
    );
  });

  it('briefs the team on its context second, before anyone answers in public, and keeps it internal', () => {
    const p = propose(recall, 'We are cooperating with the product-safety authority.');
    const titles = p.phases.map((ph) => baseTitle(ph.title));
    expect(titles[1]).toBe('Brief the team on the new context');
    expect(p.phases[1]!.actions).toEqual([
      'Share the context, marked internal, with those who need it; spokespeople get only the approved line',
      'Check it against what the coverage reports, and settle any difference before relying on it',
      'Check the plan’s open steps against it',
    ]);
  });

  it('warns off answering a charge the coverage does not make', () => {
    const column = [
      source(
        1,
        'Acme’s business accounts push teenagers into the open',
        'Critics slammed Acme for nudging teenagers into business accounts that show their contact details.',
      ),
    ];
    const p = propose(column, 'Not a security incident: no account was breached.');
    expect(p.phases.at(-1)!.actions).toContain(
      'Do not answer with a denial of something the coverage does not say: it reads as evading what it does say',
    );
  });

  it('sends criticism’s public answer through counsel, records kept, when legal trouble is coming', () => {
    const stadia = [
      source(
        1,
        'Acme’s console falls short of 4K at launch',
        'Acme’s console falls short of the 4K it promised, and early reviews are somewhat mixed.',
      ),
    ];
    const p = propose(
      stadia,
      'The regulator has opened an investigation into the 4K advertising claims, and a class action is being prepared.',
    );
    const titles = p.phases.map((ph) => baseTitle(ph.title));
    // The brand's own claim ("the 4K it promised") is reviewed with legal, and that phase
    // takes counsel's gate: no second phase saying the same, so monitoring keeps its place.
    expect(titles).toContain('Review the claims made for the product');
    expect(titles).not.toContain('Respond where it is fair');
    expect(titles).toContain('Monitor and follow up');
    const steps = p.phases.flatMap((ph) => ph.actions);
    expect(steps).toContain('Preserve the relevant records');
    expect(steps).toContain('Put any public commitment or correction to counsel before it is made');
    expect(steps).toContain(
      'Track new coverage and filings until the matter closes; review the line with counsel each week',
    );
    // Without a claim of its own in the criticism, the answer itself goes through counsel.
    const plain = propose(
      [
        source(
          1,
          'Acme’s console criticised',
          'Critics slammed Acme’s console, and early reviews are somewhat mixed.',
        ),
      ],
      'The regulator has opened an investigation, and a class action is being prepared.',
    );
    expect(plain.phases.map((ph) => baseTitle(ph.title))).toContain('Respond only through counsel');
  });
});

describe('what comes next (issue 42, seventh read)', () => {
  it('keeps a safety shutoff the team reports over under watch, and prepares the next warning', () => {
    const shutoff = [
      source(
        1,
        'Acme Power begins new shutoff over fire danger',
        'Acme Power began shutting off power on Wednesday to 375,000 people as the region faces extreme fire weather.',
      ),
    ];
    const p = propose(
      shutoff,
      'Service was restored to all customers on Friday evening; nobody was hurt.',
    );
    expect(p.assessment).toBe('watch');
    expect(p.phases.map((ph) => baseTitle(ph.title))).toContain('Prepare for the next one');
    // The regulator hears of each shutoff once it is over.
    expect(p.phases.flatMap((ph) => ph.actions)).toContain(
      'File the report the regulator requires after the event, on time',
    );
  });

  it('has the line for what the team expects next ready before it is public', () => {
    const p = propose(
      recall,
      'The regulator has contacted us. A second complaint, about the chargers, is coming this week.',
    );
    expect(p.phases.flatMap((ph) => ph.actions)).toContain(
      'Prepare, with legal, the line for what the team expects next, before it is public',
    );
  });
});

describe('eighth read', () => {
  it('keeps embargoed figures to investor relations and legal', () => {
    const launch = [
      source(
        1,
        'Acme launches the Kettle Pro',
        'Acme launched the Kettle Pro on Monday in six markets.',
      ),
    ];
    const p = propose(
      launch,
      'Sales figures are embargoed until the results on 28 January: 40,000 units sold.',
    );
    expect(p.phases.flatMap((ph) => ph.actions)).toContain(
      'Share the context with investor relations and legal first: they decide what may be said, and to whom',
    );
  });

  it('shares a favourable piece only when its figures are ones the brand can stand behind', () => {
    const g = generateAdvisory(
      [
        source(
          1,
          'Acme unveils the Kettle Pro',
          'Acme unveiled the Kettle Pro, which boils in 40 seconds.',
        ),
      ],
      acme,
    );
    expect(g.phases.flatMap((ph) => ph.actions)).toContain(
      'If the piece is favourable and its figures are ones Acme can stand behind where it shares them, share it on owned channels and thank the journalist',
    );
  });
});

describe('deadlines a spokesperson can live with (issue 42, sixth read)', () => {
  it('briefs those who may be asked the day the line is agreed, not a rung later', () => {
    const g = generateAdvisory(
      [
        source(
          1,
          'Acme accused of misleading voters',
          'Acme was accused of trying to mislead voters by renaming its press account during a debate.',
        ),
      ],
      acme,
    );
    const due = (title: string) => g.phases.find((ph) => baseTitle(ph.title) === title)?.title;
    const holding = due('Prepare a holding statement') ?? due('Hold the position on record');
    expect(holding).toBeDefined();
    const when = (title: string) => /\(([^()]*)\)$/.exec(title)?.[1];
    expect(when(due('Brief stakeholders')!)).toBe(when(holding!));
  });
});

describe('the team’s account, checked before it is said (issue 42, tenth read)', () => {
  it('warns off saying in public what the coverage does not yet support, in words that give the context away nowhere', () => {
    const context = 'Nobody was hurt: the reports were unconfirmed, and the recall is voluntary.';
    const p = propose(recall, context);
    const avoid = p.phases.find((ph) => baseTitle(ph.title) === DO_NOT)?.actions ?? [];
    expect(avoid).toContain(
      'Do not make a claim in public Acme cannot yet show: check each against the coverage and the records first',
    );
    expect(JSON.stringify(p.phases)).not.toMatch(/voluntary|unconfirmed|hurt/);
    // Context that reports worse needs no such warning.
    const worse = propose(recall, 'A second batch of kettles has the same fault.');
    expect(JSON.stringify(worse.phases)).not.toContain('cannot yet show');
  });

  it('keeps a row the coverage reports over closed when the team says it was never theirs', () => {
    const row = [
      source(
        1,
        'Singer’s row with Acme seems to be over',
        'A row between a singer and Acme, her former label, looks like it’s coming to an end. Acme says she will be allowed to play her old songs on Sunday. Last week she accused Acme of trying to stop her performing them.',
      ),
    ];
    const p = propose(row, 'This is not about us: the licensing decision was made by Globex.');
    const avoid = p.phases.find((ph) => baseTitle(ph.title) === DO_NOT)?.actions ?? [];
    expect(avoid).toContain(
      'Do not reopen the row: no comment on what the other side said before it ended',
    );
  });

  it('keeps “nothing on the merits” beside counsel’s advice', () => {
    const sued = [
      source(
        1,
        'Attorney general sues Acme',
        'The state attorney general sued Acme on Monday over hidden fees.',
      ),
    ];
    const p = propose(sued, 'Legal advises no admission of liability.');
    const avoid = p.phases.find((ph) => baseTitle(ph.title) === DO_NOT)?.actions ?? [];
    expect(avoid).toEqual(
      expect.arrayContaining([
        'Do not say anything in public on a legal matter without counsel',
        'Do not comment on the merits or the other party before counsel agrees the words',
      ]),
    );
  });
});
