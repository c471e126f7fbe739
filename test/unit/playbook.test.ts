import { describe, expect, it } from 'vitest';
import { PLAYBOOK } from '../../src/pipeline/playbook.js';

/**
 * Steps that would announce an incident (notifying a regulator, offering remedies,
 * stopping sales or recalling) say the finding they wait for: coverage is often an
 * allegation, and the step done on an allegation is the harm (issue 42: "notify the
 * data-protection authority within 72 hours" for an op-ed that alleges no breach).
 */
describe('the playbook', () => {
  const ANNOUNCING = /\b(notify|credit monitoring|stop sales|recall|apolog)/i;
  const CONDITIONED =
    /^if\b|where the law requires|where due|\bif any\b|that fits what was exposed/i;

  it('conditions every step that would announce an incident on the finding it needs', () => {
    const steps = Object.entries(PLAYBOOK).flatMap(([topic, phases]) =>
      phases.flatMap((p) => p.actions.map((a) => ({ topic, step: a }))),
    );
    const announcing = steps.filter((s) => ANNOUNCING.test(s.step));
    expect(announcing.length).toBeGreaterThan(0);
    for (const s of announcing) expect(s.step, s.topic).toMatch(CONDITIONED);
  });
});
