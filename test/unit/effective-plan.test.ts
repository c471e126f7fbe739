import { describe, expect, it } from 'vitest';
import { effectivePlan, runningTrial } from '../../src/auth/effective-plan.js';

const NOW = new Date('2030-01-10T12:00:00.000Z');
const ENDS = '2030-01-17T12:00:00.000Z';

describe('effective plan', () => {
  it('is the trial plan until the trial ends, then the own plan', () => {
    const a = { plan: 'pro', trial_plan: 'partner', trial_ends_at: ENDS } as const;
    expect(effectivePlan(a, NOW)).toBe('partner');
    expect(runningTrial(a, NOW)).toEqual({ plan: 'partner', endsAt: ENDS });
    expect(effectivePlan(a, new Date(ENDS))).toBe('pro');
    expect(runningTrial(a, new Date(ENDS))).toBeNull();
  });

  it('never lowers a plan the account already has', () => {
    const a = { plan: 'agency', trial_plan: 'partner', trial_ends_at: ENDS } as const;
    expect(effectivePlan(a, NOW)).toBe('agency');
    expect(runningTrial(a, NOW)).toBeNull();
  });

  it('is the own plan without a trial', () => {
    expect(effectivePlan({ plan: 'starter', trial_plan: null, trial_ends_at: null }, NOW)).toBe(
      'starter',
    );
    expect(effectivePlan({ plan: 'pro', trial_plan: null, trial_ends_at: ENDS }, NOW)).toBe('pro');
  });
});
