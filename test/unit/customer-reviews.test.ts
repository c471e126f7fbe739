import { describe, expect, it } from 'vitest';
import { generateAdvisory, type Source } from '../../src/pipeline/builtin-advisor.js';
import { withJudgement } from '../../src/pipeline/judgement.js';
import { baseTitle } from '../../src/pipeline/playbook.js';
import { situationOf } from '../../src/pipeline/situation.js';

/**
 * Issue 43: customers' reviews read by a connector (App Store, Trustpilot) open with their
 * stars. One or two stars are complaints to answer where they were made, several of them
 * about one thing a medium story; a critic's review keeps its own plan.
 */
const brand = { host: 'zentrix.example', name: 'Zentrix', aliases: [], match: {} };
const review = (i: number, stars: number, text: string): Source => ({
  ...withJudgement(
    {
      url: `https://apps.apple.com/us/app/id1?see-all=reviews#review-${i}`,
      title: 'Zentrix review: Lock will not open',
      publisher: 'App Store (US)',
      published_at: '2026-11-28',
      text: `${stars} of 5 stars. Lock will not open\n\n${text}`,
      type: 'review',
      author: `owner${i}`,
    },
    brand,
  ),
  source_key: `s${i + 1}`,
});
const SAYS = [
  'The app loses the pairing with my bike every morning since the update, so the lock will not open.',
  'Since the update the app keeps losing the pairing with the bike and the lock stays shut.',
  'Lock will not open: the app lost the pairing with my bike again after the update.',
  'After the update the app drops the pairing with the bike each morning; the lock will not open.',
  'The update broke the pairing: every morning the app loses my bike and the lock will not open.',
];

describe('customer reviews', () => {
  it('read their stars, and answer a one-star review where it was made', () => {
    const one = review(0, 1, SAYS[0]!);
    expect(situationOf(one, brand).stars).toBe(1);
    const a = generateAdvisory([one], brand);
    expect(a.severity).toBe('low');
    expect(a.executiveSummary[0]!.text).toBe(
      'A customer review on App Store (US), 1 of 5 stars: “Lock will not open”.',
    );
    expect(a.phases.map((p) => baseTitle(p.title))).toEqual([
      'Find what the reviewers report',
      'Answer the reviewers where they wrote',
      'Fix it and say so',
      'Watch the reviews',
    ]);
    // Nothing of a critic's review: no correction sent to the reviewer, nothing shared.
    expect(JSON.stringify(a.phases)).not.toMatch(/correction|owned channels/);
  });

  it('make five unhappy customers saying one thing a medium story, counted and cited', () => {
    const a = generateAdvisory(
      SAYS.map((t, i) => review(i, i === 4 ? 2 : 1, t)),
      brand,
    );
    expect(a.severity).toBe('medium');
    expect(a.executiveSummary[0]).toEqual({
      text: '5 customer reviews on App Store (US) say one thing, 1 to 2 of 5 stars: “Lock will not open”.',
      cites: ['s1', 's2', 's3', 's4', 's5'],
    });
    // Four are not yet a pattern.
    expect(
      generateAdvisory(
        SAYS.slice(0, 4).map((t, i) => review(i, 1, t)),
        brand,
      ).severity,
    ).toBe('low');
  });

  it('leave a critic’s review and a happy customer as they were', () => {
    const happy = review(0, 5, 'Zentrix fixed the lock quickly, great app.');
    expect(baseTitle(generateAdvisory([happy], brand).phases[0]!.title)).toBe('Read the review');
    const critic = withJudgement(
      {
        url: 'https://gadgets.example/zentrix-e-bike-review',
        title: 'Zentrix e-bike review: light, quick, and a lock app that needs work',
        publisher: 'Gadget Weekly',
        published_at: '2026-11-28',
        text: 'We rode the Zentrix commuter for a month. The battery held up; the lock app did not always pair.',
        type: 'news',
      },
      brand,
    );
    expect(situationOf(critic, brand).stars).toBeNull();
  });
});
