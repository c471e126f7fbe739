import { describe, expect, it } from 'vitest';
import { generateAdvisory } from '../../src/pipeline/builtin-advisor.js';
import { actingParty, dateAhead, deadlineIn } from '../../src/pipeline/particulars.js';
import { situationOf } from '../../src/pipeline/situation.js';
import { source } from '../support/source.js';

/** Issue 42: a consultant's plan names the article's own parties and dates. */
const isAcme = (text: string) => /\bAcme\b/.test(text);
const acme = { host: 'acme.com', name: 'Acme' };
const article = (title: string, text: string) => ({
  ...source(1, title, text),
  url: 'https://news.example/a',
});

describe('the party acting against the brand', () => {
  it('is read where the grammar is plain: a name or a role before a verb of acting, or after "by"', () => {
    expect(actingParty('Acme was sued by three former employees over overtime.', isAcme)).toBe(
      'three former employees',
    );
    expect(actingParty('The Federal Trade Commission has sued Acme.', isAcme)).toBe(
      'the Federal Trade Commission',
    );
    expect(
      actingParty('New York State Attorney General investigating Acme and former CEO', isAcme),
    ).toBe('the New York State Attorney General');
    expect(actingParty('Regulators fined Acme $2 million for the leak.', isAcme)).toBe(
      'regulators',
    );
    expect(
      actingParty('Amnesty International accuses Acme of enabling surveillance.', isAcme),
    ).toBe('Amnesty International');
  });

  it('is nobody when the sentence does not plainly say: no name beats a wrong one', () => {
    for (const sentence of [
      // the brand is the target of a passive verb, or the actor itself
      "Britain's Conservative Party was accused Wednesday of trying to deceive voters.",
      'Acme fined Globex for late delivery.',
      // a medium, not a party; a headline in title case; a pronoun
      'Taylor Swift posted on Twitter accusing Acme of stopping her.',
      'Workers Sue Acme Over Unpaid Wages',
      'They accused Acme of lying.',
    ]) {
      expect(actingParty(sentence, isAcme), sentence).toBeNull();
    }
  });

  it('names a date only when it lies ahead, in the coverage’s words', () => {
    expect(dateAhead(['Acme employees to be laid off this week'])).toEqual({
      said: 'Acme employees to be laid off this week',
      when: 'the end of this week',
    });
    expect(dateAhead(['Drivers will strike on Tuesday'])?.said).toBe(
      'Drivers will strike on Tuesday',
    );
    expect(dateAhead(['Acme laid off 200 people on Monday'])).toBeNull();
    // "Tomorrow" lies ahead whatever the verb; a date opening the clause is quoted with
    // what follows it.
    expect(dateAhead(['Tomorrow the Acme console launches, and reviews are mixed'])).toEqual({
      said: 'Tomorrow the Acme console launches',
      when: 'tomorrow',
    });
  });

  it('counts the date from the article’s, so a step reads right days later', () => {
    // 20 November 2026 is a Friday.
    const when = (sentence: string) => dateAhead([sentence], '2026-11-20')?.when;
    expect(when('The Acme console launches tomorrow')).toBe('Saturday 21 November');
    expect(when('Drivers will strike on Tuesday')).toBe('Tuesday 24 November');
    // A span begun may mean today: the step is done by then.
    expect(when('Acme employees to be laid off this week')).toBe('the end of Friday 20 November');
    expect(when('Acme staff will walk out next week')).toBe('Monday 23 November');
    expect(when('The vote is scheduled for Dec. 5')).toBe('5 December');
    expect(when('Acme plans to close the plant in mid-August')).toBe('mid-August');
    expect(when('The shutoff begins today')).toBe('the end of Friday 20 November');
    // A day named is the nearest, the article's own included: "sign by Friday" in Friday's
    // paper may be that day (a consultant's read: a week later let the deadline pass).
    expect(
      deadlineIn(
        ['Staff must sign the new terms by Friday, or be treated as resigning'],
        '2026-11-20',
      )?.when,
    ).toBe('the end of Friday 20 November');
    expect(when('Acme is set to announce the terms later on Friday')).toBe(
      'the end of Friday 20 November',
    );
    // Of several dates, the earliest: a step done by then is in time for all.
    expect(
      dateAhead(
        [
          'The listing is due to be held next Tuesday.',
          'Acme is set to announce the terms later on Friday.',
        ],
        '2026-11-20',
      ),
    ).toEqual({
      said: 'Acme is set to announce the terms later on Friday',
      when: 'the end of Friday 20 November',
    });
    expect(when('The listing is due to be held next Tuesday')).toBe('Tuesday 24 November');
    // A day just gone is no date to plan by: any date ahead comes first.
    expect(
      dateAhead(
        ['The vote was expected to be held on Nov. 2.', 'The board will meet on Tuesday.'],
        '2026-11-20',
      )?.when,
    ).toBe('Tuesday 24 November');
    // A call on the calendar, on the article's day.
    expect(
      dateAhead(
        ['Acme management hosts a conference call at 9 a.m. ET to discuss results.'],
        '2026-11-20',
      ),
    ).toEqual({
      said: 'Acme management hosts a conference call at 9 a.m. ET',
      when: 'the call at 9 a.m. ET on 20 November',
    });
    // A clause is quoted from its start (after "and"), twenty words at most.
    expect(
      dateAhead(
        [
          'Shares fell, and the company said that its long-delayed flagship phone will finally ship on Monday',
        ],
        '2026-11-20',
      ),
    ).toEqual({
      said: 'the company said that its long-delayed flagship phone will finally ship on Monday',
      when: 'Monday 23 November',
    });
  });
});

describe('plans that name them', () => {
  it('asks counsel what the named authority wants, and briefs staff before the reported date', () => {
    const inquiry = generateAdvisory(
      [
        article(
          'New York State Attorney General investigating Acme and former CEO',
          'The New York State Attorney General is investigating Acme over its former chief executive’s deals, according to people familiar with the matter.\n\nAcme declined to comment.',
        ),
      ],
      acme,
    );
    expect(inquiry.phases.flatMap((p) => p.actions)).toContain(
      'Establish with counsel what the New York State Attorney General is asking of Acme, and by when',
    );
    const cuts = generateAdvisory(
      [
        article(
          'Acme employees to be laid off this week',
          'Acme employees are to be laid off this week as the company cuts costs.\n\nAcme has 12,000 staff.',
        ),
      ],
      acme,
    );
    expect(cuts.phases.flatMap((p) => p.actions)).toContain(
      'Brief managers and staff before any public statement, and before the end of Friday 20 November: the coverage says “Acme employees to be laid off this week”',
    );
  });

  it('has the first phase done before a date no step names', () => {
    const g = generateAdvisory(
      [
        article(
          'Acme console launches tomorrow to mixed reviews',
          'The Acme console launches tomorrow and early reviews are somewhat mixed.\n\nCritics say it falls short of the 4K Acme promised.',
        ),
      ],
      acme,
    );
    expect(g.phases[0]!.actions.at(-1)).toBe(
      'Have this done before Saturday 21 November: the coverage says “Acme console launches tomorrow”',
    );
  });

  it('names a deadline staff were given in the step that decides on it', () => {
    expect(
      deadlineIn(['Employees were told to sign the terms of the contract by Monday, or resign.']),
    ).toEqual({ said: 'sign the terms of the contract by Monday', when: 'Monday' });
    expect(deadlineIn(['Acme laid off 200 people by Monday morning.'])).toBeNull();
    const g = generateAdvisory(
      [
        article(
          'Acme employees to be laid off this week',
          'Acme employees are to be laid off this week as the company cuts costs.\n\nAcme staff moving to Globex were told to sign the new terms by Monday, or Acme would treat them as resigning.',
        ),
      ],
      acme,
    );
    expect(g.phases.flatMap((p) => p.actions)).toContain(
      'Decide with legal, before Monday 23 November, on the deadline staff were given: “sign the new terms by Monday”',
    );
  });

  it('leaves the plan as it was when nothing plain is read, and names nobody for a denied story', () => {
    const plain = situationOf(
      article('Acme accused of misleading customers', 'Acme was accused of misleading customers.'),
      acme,
    );
    expect(plain).toMatchObject({ by: null, ahead: null, deadline: null });
    const denied = situationOf(
      article(
        'Regulators fine Acme',
        'Regulators fined Acme $2 million over the leak, a report said.\n\nAcme denied the report and said no data was accessed.',
      ),
      acme,
    );
    expect(denied.status).toBe('denied');
    expect(denied.by).toBeNull();
  });
});
