import { describe, expect, it } from 'vitest';
import {
  advisoryChanges,
  align,
  isUnchanged,
  likeness,
} from '../../src/domain/advisory-changes.js';

const phase = (title: string, ...actions: string[]) => ({ title, actions });
const live = {
  assessment: 'threat',
  urgency: 'high',
  spread: 'contained',
  executive_summary: [
    { text: 'Acme recalls 40,000 kettles after reports of fires.' },
    { text: 'No injuries have been reported so far.' },
    { text: 'The regulator is reviewing the reports.' },
  ],
  phases: [
    phase(
      'Establish the facts',
      'Confirm what happened with the owning team',
      'Collect every claim',
    ),
    phase(
      'Protect customers',
      'Decide with quality and legal whether to stop sales',
      'Publish instructions',
    ),
    phase(
      'Inform regulators and partners',
      'Notify the product-safety authority',
      'Brief retailers',
    ),
    phase('Monitor and follow up', 'Track new coverage for 72 hours', 'Publish an update'),
  ],
};

describe('advisory changes', () => {
  it('an inserted phase is one added phase, not every later phase changed', () => {
    const phases = [...live.phases];
    phases.splice(
      2,
      0,
      phase('Prepare a holding statement', 'Draft a factual statement', 'Get legal sign-off'),
    );
    const c = advisoryChanges(live, { ...live, phases });
    expect(c.plan).toEqual([
      {
        kind: 'added',
        number: 3,
        after: phases[2],
        actionsAdded: [],
        actionsRemoved: [],
      },
    ]);
    expect(c.fields).toEqual([]);
    expect(c.summary).toEqual([]);
  });

  it('a removed phase, and a reworded one with an action added and one removed', () => {
    const phases = [
      live.phases[0]!,
      phase(
        'Protect customers now',
        'Decide with quality and legal whether to stop sales',
        'Open a hotline',
      ),
      live.phases[3]!,
    ];
    const c = advisoryChanges(live, { ...live, phases });
    expect(c.plan.map((p) => [p.kind, p.number])).toEqual([
      ['changed', 2],
      ['removed', 3],
    ]);
    expect(c.plan[0]).toMatchObject({
      before: { title: 'Protect customers' },
      after: { title: 'Protect customers now' },
      actionsAdded: ['Open a hotline'],
      actionsRemoved: ['Publish instructions'],
    });
    expect(c.plan[1]!.before!.title).toBe('Inform regulators and partners');
  });

  it('summary sentences added, removed and reworded; fields that move', () => {
    const c = advisoryChanges(live, {
      ...live,
      assessment: 'crisis',
      urgency: 'high',
      executive_summary: [
        { text: 'Acme recalls 40,000 kettles after reports of two fires.' },
        { text: 'The recall ended on Monday, the company said.' },
        { text: 'The regulator is reviewing the reports.' },
      ],
    });
    expect(c.fields).toEqual([{ field: 'assessment', before: 'threat', after: 'crisis' }]);
    expect(c.summary).toEqual([
      {
        kind: 'changed',
        before: 'Acme recalls 40,000 kettles after reports of fires.',
        after: 'Acme recalls 40,000 kettles after reports of two fires.',
      },
      { kind: 'removed', before: 'No injuries have been reported so far.' },
      { kind: 'added', after: 'The recall ended on Monday, the company said.' },
    ]);
  });

  it('accented words match as themselves; a spread first estimated is shown as new', () => {
    expect(
      likeness('Rückruf der Wasserkocher', 'Der Rückruf der Wasserkocher endet'),
    ).toBeGreaterThan(0.5);
    expect(likeness('résumé publié', 'resume publie')).toBe(1);
    const { spread: _, ...noSpread } = live;
    expect(advisoryChanges(noSpread, live).fields).toEqual([
      { field: 'spread', before: null, after: 'contained' },
    ]);
  });

  it('nothing changed reads as unchanged', () => {
    expect(isUnchanged(advisoryChanges(live, live))).toBe(true);
  });

  it('alignment keeps order and pairs only what is alike', () => {
    expect(likeness('Protect customers', 'Protect customers now')).toBeGreaterThan(0.5);
    expect(likeness('Protect customers', 'Brief retailers')).toBe(0);
    const same = (x: string, y: string) => (x === y ? 1 : 0);
    expect(align(['a', 'b', 'c'], ['a', 'x', 'b', 'c'], same, 1)).toEqual([
      [0, 0],
      [1, 2],
      [2, 3],
    ]);
    expect(align(['a', 'b'], ['b', 'a'], same, 1)).toHaveLength(1);
  });
});
