import type { EventKind } from './events.js';
import { inProse } from './particulars.js';
import { eventSentence, type Situation } from './situation.js';

/**
 * The summary's first line when the situation says more than a quoted sentence can: who
 * acts, and how far the coverage stands behind it ("The coverage reports an accusation
 * against the Conservative Party, not confirmed."). Written by the service from the
 * situation, never from the article's words; null for a plain confirmed event nobody is
 * named behind, which the first quoted sentence says well enough.
 */
export function readAs(situation: Situation, name: string): string | null {
  const brand = inProse(name);
  const what =
    situation.event === 'regulator-action'
      ? `${authorityAction(eventSentence(situation))} ${brand}${situation.by ? ` by ${situation.by}` : ' by an authority'}`
      : EVENT_PHRASE[situation.event]?.(brand, situation.by);
  if (!what) return null;
  // Criticism is an argument, not a claim to confirm.
  const status =
    situation.event === 'criticism' ? '' : (STATUS_PHRASE[situation.status]?.(brand) ?? '');
  if (situation.opinion) {
    const verb =
      situation.event === 'criticism' || situation.event === 'accusation' ? 'levels' : 'discusses';
    return `An opinion piece ${verb} ${what}${status}.`;
  }
  if (!status && !situation.by) return null;
  // Over is said of the thing itself: "An outage at Disney is reported as over." A row the
  // coverage says "looks like it's coming to an end" is not said to be over (the
  // fourteenth read: the organiser "denies that anything has been definitely sorted").
  if (situation.status === 'resolved' && situation.event !== 'criticism') {
    const said = situation.facts.find((f) => f.fact === 'status')?.sentence ?? '';
    const state = /\b(?:coming to an end|ending|winding down)\b/i.test(said)
      ? 'coming to an end'
      : 'over';
    return `${what[0]!.toUpperCase()}${what.slice(1)} is reported as ${state}.`;
  }
  return `The coverage reports ${what}${status}.`;
}

/** What an authority does, by the sentence telling it: an inquiry is not yet a sanction. */
function authorityAction(sentence: string): string {
  if (/\binvestigat|\bprobe|\binquiry|\bexamin/i.test(sentence)) return 'an investigation of';
  if (/\bfine[sd]?\b|\bpenalt/i.test(sentence)) return 'a penalty on';
  if (/\bground(?:ed|s|ing)?\b/i.test(sentence)) return 'a grounding order against';
  if (/\bbann?(?:ed|s)?\b/i.test(sentence)) return 'a ban on';
  return 'action against';
}

const by = (party: string | null, verb = 'by') => (party ? ` ${verb} ${party}` : '');

/** The adverse events, as a noun phrase naming the brand and, where read, who acts. */
const EVENT_PHRASE: Partial<Record<EventKind, (brand: string, party: string | null) => string>> = {
  accident: (b) => `an accident involving ${b}`,
  recall: (b) => `a recall by ${b}`,
  breach: (b) => `a data breach at ${b}`,
  defect: (b) => `a defect in what ${b} makes`,
  'security-flaw': (b) => `a security flaw in what ${b} makes`,
  lawsuit: (b, p) => `a lawsuit against ${b}${by(p, 'brought by')}`,
  accusation: (b, p) => `an accusation against ${b}${by(p, 'made by')}`,
  environmental: (b) => `environmental harm attributed to ${b}`,
  layoffs: (b) => `job cuts at ${b}`,
  'labor-dispute': (b) => `a labour dispute at ${b}`,
  outage: (b) => `an outage at ${b}`,
  'executive-departure': (b) => `a departure from ${b}’s leadership`,
  criticism: (b, p) => `criticism of ${b}${by(p)}`,
};

/** How far the coverage stands behind it; nothing for what it states as fact. */
const STATUS_PHRASE: Partial<Record<Situation['status'], (brand: string) => string>> = {
  alleged: () => ', not confirmed',
  denied: (b) => `, which ${b} denies`,
  resolved: () => ', reported as over',
};
