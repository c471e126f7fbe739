/**
 * What a proposed update changes in an advisory, as a person reads it: the assessment,
 * urgency and spread that move; summary sentences added, removed or reworded; phases
 * added, removed, renamed or with actions added and removed. Sentences and phases are
 * paired by what they say, not by their place, so one phase inserted does not make every
 * later phase look changed.
 */

export interface AdvisoryText {
  assessment: string;
  urgency: string;
  spread?: string | undefined;
  executive_summary: readonly { text: string }[];
  phases?: readonly { title: string; actions: readonly string[] }[] | undefined;
}

export type Change<T> =
  | { kind: 'added'; after: T }
  | { kind: 'removed'; before: T }
  | { kind: 'changed'; before: T; after: T };

export interface PhaseChange {
  kind: 'added' | 'removed' | 'changed';
  /** Its number in the plan it is read in: the proposal's, or for a removed one the live plan's. */
  number: number;
  before?: { title: string; actions: readonly string[] };
  after?: { title: string; actions: readonly string[] };
  actionsAdded: string[];
  actionsRemoved: string[];
}

export interface AdvisoryChanges {
  /** `before` null: the live advisory had none (a spread first estimated). */
  fields: { field: 'assessment' | 'urgency' | 'spread'; before: string | null; after: string }[];
  summary: Change<string>[];
  plan: PhaseChange[];
}

const words = (text: string) =>
  new Set(
    text
      .toLowerCase()
      .normalize('NFKD')
      // Accents decomposed and dropped, so "résumé" is one word, "resume".
      .replace(/\p{M}/gu, '')
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length > 2),
  );

/** How much two texts say the same, 0 … 1: shared words over all words (Jaccard). */
export function likeness(a: string, b: string): number {
  const x = words(a);
  const y = words(b);
  if (x.size === 0 && y.size === 0) return a.trim() === b.trim() ? 1 : 0;
  let shared = 0;
  for (const w of x) if (y.has(w)) shared++;
  return shared / (x.size + y.size - shared);
}

/**
 * Pairs the items of two lists that say the same, keeping their order (a longest common
 * subsequence where a pair scores its likeness, and pairs below `min` do not count).
 * Answers the pairs as [index in a, index in b], in order.
 */
export function align<T>(
  a: readonly T[],
  b: readonly T[],
  score: (x: T, y: T) => number,
  min: number,
): [number, number][] {
  const n = a.length;
  const m = b.length;
  const best: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  const s = (i: number, j: number) => {
    const v = score(a[i]!, b[j]!);
    return v >= min ? v : -1;
  };
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const pair = s(i, j);
      best[i]![j] = Math.max(
        best[i + 1]![j]!,
        best[i]![j + 1]!,
        pair >= 0 ? pair + best[i + 1]![j + 1]! : -Infinity,
      );
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    const pair = s(i, j);
    if (pair >= 0 && best[i]![j] === pair + best[i + 1]![j + 1]!) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if (best[i]![j] === best[i + 1]![j]) i++;
    else j++;
  }
  return pairs;
}

/** A sentence is the same one reworded when it keeps most of its words. */
const SAME_SENTENCE = 0.5;
/** A phase is the same one when its title and actions keep a third of their words. */
const SAME_PHASE = 0.3;

const phaseText = (p: { title: string; actions: readonly string[] }) =>
  `${p.title} ${p.title} ${p.actions.join(' ')}`;

export function advisoryChanges(live: AdvisoryText, next: AdvisoryText): AdvisoryChanges {
  const fields: AdvisoryChanges['fields'] = [];
  for (const field of ['assessment', 'urgency', 'spread'] as const) {
    const before = live[field];
    const after = next[field];
    if (after !== undefined && before !== after)
      fields.push({ field, before: before ?? null, after });
  }

  const a = live.executive_summary.map((i) => i.text);
  const b = next.executive_summary.map((i) => i.text);
  const summary: Change<string>[] = [];
  const sentencePairs = align(a, b, likeness, SAME_SENTENCE);
  walk(a.length, b.length, sentencePairs, {
    removed: (i) => summary.push({ kind: 'removed', before: a[i]! }),
    added: (j) => summary.push({ kind: 'added', after: b[j]! }),
    paired: (i, j) => {
      if (a[i] !== b[j]) summary.push({ kind: 'changed', before: a[i]!, after: b[j]! });
    },
  });

  const p = live.phases ?? [];
  const q = next.phases ?? [];
  const plan: PhaseChange[] = [];
  const phasePairs = align(p, q, (x, y) => likeness(phaseText(x), phaseText(y)), SAME_PHASE);
  walk(p.length, q.length, phasePairs, {
    removed: (i) =>
      plan.push({
        kind: 'removed',
        number: i + 1,
        before: p[i]!,
        actionsAdded: [],
        actionsRemoved: [],
      }),
    added: (j) =>
      plan.push({
        kind: 'added',
        number: j + 1,
        after: q[j]!,
        actionsAdded: [],
        actionsRemoved: [],
      }),
    paired: (i, j) => {
      const x = p[i]!;
      const y = q[j]!;
      const kept = new Set(
        align(x.actions, y.actions, (u, v) => (u === v ? 1 : 0), 1).flatMap(([k, l]) => [
          `a${k}`,
          `b${l}`,
        ]),
      );
      const actionsRemoved = x.actions.filter((_, k) => !kept.has(`a${k}`));
      const actionsAdded = y.actions.filter((_, l) => !kept.has(`b${l}`));
      if (x.title !== y.title || actionsAdded.length > 0 || actionsRemoved.length > 0) {
        plan.push({
          kind: 'changed',
          number: j + 1,
          before: x,
          after: y,
          actionsAdded,
          actionsRemoved,
        });
      }
    },
  });
  return { fields, summary, plan };
}

/** Visits two aligned lists in reading order: what only one has, and the pairs. */
function walk(
  n: number,
  m: number,
  pairs: [number, number][],
  visit: { removed(i: number): void; added(j: number): void; paired(i: number, j: number): void },
) {
  let i = 0;
  let j = 0;
  for (const [pi, pj] of [...pairs, [n, m] as [number, number]]) {
    while (i < pi) visit.removed(i++);
    while (j < pj) visit.added(j++);
    if (pi < n && pj < m) visit.paired(i++, j++);
  }
}

/** Whether the proposal changes nothing a person would see. */
export const isUnchanged = (c: AdvisoryChanges) =>
  c.fields.length === 0 && c.summary.length === 0 && c.plan.length === 0;
