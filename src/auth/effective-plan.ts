import type { Plan } from '../db/schema.js';

/** What an account row says about its plan: its own, and a reclaim trial's if any. */
export interface PlanFacts {
  plan: Plan;
  trial_plan: Plan | null;
  trial_ends_at: string | null;
}

const RANK: Record<Plan, number> = { starter: 0, pro: 1, partner: 2, agency: 3 };

/** The running trial of an account, or null (none, or already over: nothing to undo). */
export function runningTrial(a: PlanFacts, now: Date): { plan: Plan; endsAt: string } | null {
  if (!a.trial_plan || !a.trial_ends_at || Date.parse(a.trial_ends_at) <= now.getTime()) {
    return null;
  }
  // A trial never lowers a plan the account already has.
  if (RANK[a.trial_plan] <= RANK[a.plan]) return null;
  return { plan: a.trial_plan, endsAt: a.trial_ends_at };
}

/**
 * The plan an account works with now: the one place every door (API keys, OAuth tokens,
 * portal sessions, action links) and every plan-gated capability (API access, included
 * units, seats) asks, so a reclaim trial starts and ends for all of them at once, by the
 * clock alone, with nothing to switch back when it ends.
 */
export function effectivePlan(a: PlanFacts, now: Date): Plan {
  return runningTrial(a, now)?.plan ?? a.plan;
}
