import type { BrandTerms } from './brand-matcher.js';
import { type GeneratedAdvisory, generateAdvisory, type Source } from './builtin-advisor.js';
import { baseTitle, DO_NOT, MAX_PHASES } from './playbook.js';

/**
 * A proposal (spec 3.3): the advisory thought again from the story's sources as they are
 * now and the brand's context, not the live one with a line appended (docs/pipeline.md,
 * "Proposals"). The same for the built-in generator and the model: started phases come
 * back verbatim at their numbers, whatever writes the rest.
 */
export interface ProposalInput {
  sources: readonly Source[];
  /** What the brand's team now says, up to 2,000 characters. */
  context: string;
  /**
   * What it said before, in the proposals it applied, oldest first: contexts accumulate,
   * none replaces another (the advisory is made again from the sources each time).
   */
  earlier?: readonly string[];
  brand?: BrandTerms;
  live: LivePlan;
}

export interface LivePlan {
  assessment: string | null;
  urgency: string | null;
  phases: readonly { number: number; title: string; actions: string[]; started: boolean }[];
}

/**
 * The built-in proposal: the advisory made again by the same code as a new story's
 * (generateAdvisory), from the sources as they are now and every context the team has
 * given, the earlier ones first. Started phases come back verbatim at their numbers.
 */
export function rethinkAdvisory(input: ProposalInput): GeneratedAdvisory {
  const contexts = [...(input.earlier ?? []), input.context];
  return withStartedPhases(generateAdvisory(input.sources, input.brand, contexts), input.live);
}

/**
 * The plan with each started live phase verbatim at its number (the fresh phase there
 * gives way and follows), the fresh ones filling the other numbers up to six in all. A
 * fresh phase with a started one's title is that phase, not a second copy. Applying keeps
 * the started phases at the same numbers (applyProposal), so what the proposal shows is
 * what applies.
 */
export function withStartedPhases(advisory: GeneratedAdvisory, live: LivePlan): GeneratedAdvisory {
  const started = live.phases.filter((p) => p.started);
  // The "Do not" list closes the plan whatever is kept: an ordinary phase gives way to it.
  const avoid = advisory.phases.find(
    (p) => p.title === DO_NOT && !started.some((s) => s.title === DO_NOT),
  );
  // The same phase comes back under a new deadline when the urgency moved: still that phase.
  const fresh = advisory.phases.filter(
    (p) => p !== avoid && !started.some((s) => baseTitle(s.title) === baseTitle(p.title)),
  );
  const last = Math.max(0, ...started.map((s) => s.number));
  const out: { title: string; actions: string[] }[] = [];
  let next = 0;
  const room = MAX_PHASES - (avoid ? 1 : 0);
  for (let n = 1; n <= last || (next < fresh.length && out.length < room); n++) {
    const kept = started.find((s) => s.number === n);
    if (kept) out.push({ title: kept.title, actions: [...kept.actions] });
    else if (next < fresh.length) out.push(fresh[next++]!);
    else break;
  }
  if (avoid && out.length < MAX_PHASES) out.push(avoid);
  return { ...advisory, phases: out };
}

/** Words, lower-cased, for comparing texts whatever their spacing and punctuation. */
const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * Whether any of `texts` repeats the private context: five of its words in a row (or all
 * of a shorter context of three or four). A model asked never to quote it is checked, not
 * trusted. A context of one or two words ("Resolved.") is no secret a sentence could give
 * away, and refusing every summary holding that word would only silence the model.
 */
export function quotesContext(texts: readonly string[], context: string): boolean {
  const said = words(context);
  if (said.length < 3) return false;
  const span = Math.min(5, said.length);
  const written = texts.map((t) => ` ${words(t).join(' ')} `);
  for (let i = 0; i + span <= said.length; i++) {
    const run = ` ${said.slice(i, i + span).join(' ')} `;
    if (written.some((w) => w.includes(run))) return true;
  }
  return false;
}
