import type { BrandTerms } from './brand-matcher.js';
import {
  ASSESSMENTS,
  type GeneratedAdvisory,
  generateAdvisory,
  type Source,
  URGENCIES,
} from './builtin-advisor.js';
import { DO_NOT } from './playbook.js';
import { SEVERITIES, scoreText } from './taxonomy.js';

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

/** Phases a plan holds at most. */
const MAX_PHASES = 6;

/**
 * Context that says the coverage overstates the harm: corrected facts, nobody hurt, a
 * voluntary or precautionary step, a problem already over. English, French, German,
 * Spanish, as the signal lists.
 */
const EASING = new RegExp(
  [
    String.raw`\b(?:resolved|fixed|false|inaccurate|misleading|denied|corrected|retracted|untrue|precaution(?:ary)?|voluntar(?:y|ily)|isolated|contained|restored)\b`,
    String.raw`\bno (?:one|body|customers?|people|injur(?:y|ies)|data|personal data)\b`,
    String.raw`\bnobody\b`,
    String.raw`\bnot (?:affected|hurt|injured|accessed|true|responsible)\b`,
    String.raw`\bwas(?:n't| not) (?:hurt|injured|affected|accessed)\b`,
    String.raw`\b(?:personne n'a été|aucun(?:e)? (?:blessé|client))|\bvolontaire\b|\bfaux\b`,
    String.raw`\b(?:niemand|keine? (?:Verletzten|Kunden))\b|\bfreiwillig\b|\bfalsch\b`,
    String.raw`\b(?:nadie|ningún (?:herido|cliente))\b|\bvoluntari[oa]\b|\bfals[oa]\b`,
  ].join('|'),
  'i',
);

/** The step an assessment or urgency takes: down when eased, up when the context is worse. */
function step<T extends string>(scale: readonly T[], value: T, by: number): T {
  const at = scale.indexOf(value);
  if (at < 0) return value;
  return scale[Math.max(0, Math.min(scale.length - 1, at + by))]!;
}

/**
 * Sentences that deny an incident: "not a security incident", "no system was breached".
 * Their words ("breached", "incident") are what they deny, never a signal of worse.
 */
const DENIAL = new RegExp(
  [
    String.raw`\b(?:no|not an?|never an?)\s+(?:\w+\s+)?(?:breach|incident|attack|hack|leak|recall|injur(?:y|ies)|lawsuit|investigation|fine|outage)\b`,
    String.raw`\bno (?:system|systems|server|servers|account|accounts|customer data|records?) (?:was|were|has been|have been) (?:breached|hacked|compromised|accessed|affected|exposed)\b`,
    String.raw`\b(?:was|were|is|are|has|have)(?:n't| not)(?: been)? (?:breached|hacked|compromised|accessed|exposed|leaked|recalled|sued|fined)\b`,
    String.raw`\bnot about us\b|\b(?:is|was)(?:n't| not) (?:us|our (?:company|brand|product)s?)\b`,
  ].join('|'),
  'i',
);

/**
 * What one context does to the story, sentence by sentence: -1 eases it, +1 aggravates
 * it, 0 neither. A sentence that eases or denies ("nobody was hurt", "not a security
 * incident: no system was breached") eases, whatever alarming words it denies; one whose
 * own signals outrank the coverage's ("a regulator opened an investigation") aggravates,
 * and wins: worse news is not cancelled by a reassurance beside it.
 */
function contextDirection(context: string, base: GeneratedAdvisory, language?: string | null) {
  let direction = 0;
  for (const sentence of context.split(/(?<=[.!?;:])\s+/)) {
    const said = scoreText(sentence, language);
    const ofTheStory = said.topics.some((t) => base.topics.includes(t));
    // A denial of something the coverage does not say ("no system was breached" beside
    // an attorney general's investigation) eases nothing: a denial eases only a story of
    // what it denies; a reassurance eases one of its own topics, or any when it names none
    // ("the reports are false", "nobody was hurt").
    if (DENIAL.test(sentence)) {
      if (ofTheStory) direction = -1;
      continue;
    }
    if (EASING.test(sentence)) {
      if (ofTheStory || said.topics.length === 0) direction = -1;
      continue;
    }
    if (SEVERITIES.indexOf(said.severity) > SEVERITIES.indexOf(base.severity)) return 1;
  }
  return direction;
}

/**
 * The built-in proposal. Scores, summary and plan are made afresh from the sources (the
 * spread too: the story may have grown since). The context then moves assessment and
 * urgency one step: down when it eases the story ("nobody was hurt", "the recall is
 * voluntary"), up when it reveals worse (its own signals outrank the coverage's), and the
 * plan gains the phase it calls for: correcting the record, or briefing the team. The
 * context is the team's private knowledge ("Legal advises no admission of liability"):
 * it moves the judgement, never the advisory's words, which shares show to the public.
 */
export function rethinkAdvisory(input: ProposalInput): GeneratedAdvisory {
  const base = generateAdvisory(input.sources, input.brand);
  // Each context moves the judgement a step, the earlier ones as when they were applied
  // (the advisory is made again from the sources, so their steps are taken again), at
  // most two in all.
  const language = input.sources[0]?.language;
  const steps = [...(input.earlier ?? []), input.context].map((c) =>
    contextDirection(c.replace(/\s+/g, ' ').trim(), base, language),
  );
  const direction = Math.max(
    -2,
    Math.min(
      2,
      steps.reduce((a, b) => a + b, 0),
    ),
  );
  const latest = steps.at(-1) ?? 0;
  const assessment =
    base.assessment === 'opportunity'
      ? base.assessment
      : step(ASSESSMENTS, base.assessment, direction);
  const urgency = step(URGENCIES, base.urgency, direction);
  const extra =
    latest < 0
      ? {
          // The team's word eases the story; whether the coverage is wrong is for the
          // review to show, and a correction sent before it would be the harm.
          title: 'Correct the record',
          actions: [
            'If the review shows the coverage is wrong, send the publishers the correction with the evidence',
            'Once it is confirmed, publish the clarification on owned channels',
          ],
        }
      : {
          title: 'Brief the team on the new context',
          actions: [
            'Share the context with everyone answering questions',
            'Update the holding statement with it',
          ],
        };
  // The new phase goes third; the "Do not" list stays last, and a plan that would run
  // past six phases gives up its last ordinary one (monitoring) for it.
  const avoid = base.phases.filter((p) => p.title === DO_NOT);
  const phases = base.phases.filter((p) => p.title !== DO_NOT);
  phases.splice(Math.min(2, phases.length), 0, extra);
  while (phases.length + avoid.length > MAX_PHASES) phases.pop();
  phases.push(...avoid);
  return withStartedPhases(
    {
      ...base,
      assessment,
      urgency,
      phases,
    },
    input.live,
  );
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
  const fresh = advisory.phases.filter((p) => !started.some((s) => s.title === p.title));
  const last = Math.max(0, ...started.map((s) => s.number));
  const out: { title: string; actions: string[] }[] = [];
  let next = 0;
  for (let n = 1; n <= last || (next < fresh.length && out.length < MAX_PHASES); n++) {
    const kept = started.find((s) => s.number === n);
    if (kept) out.push({ title: kept.title, actions: [...kept.actions] });
    else if (next < fresh.length) out.push(fresh[next++]!);
    else break;
  }
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
