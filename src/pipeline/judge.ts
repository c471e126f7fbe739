import { EVENT_TYPES, eventType } from './events.js';
import { eventSentence, ownsStory, recallUnderWay, type Situation } from './situation.js';
import {
  type Reason,
  type Scored,
  type Severity,
  severityOfScore,
  topicWeight,
} from './taxonomy.js';

/**
 * The severity of one article for the brand, computed from its situation (docs/pipeline.md,
 * "From the situation to the judgement"), with the reasons it rests on:
 * - a brand that is only a source, named in passing or in the page's furniture: low;
 * - good or neutral news (a launch, an award, a deal, a review, a profile): low, whatever
 *   alarming words stand near the brand;
 * - an adverse event: its weight, plus the other risks its sentences report (at most 2,
 *   and never more than the event itself: a complaint beside talk of privacy is no breach),
 *   plus 2 for deaths or the taxonomy's intensifiers in a sentence telling the event, 1 for
 *   injuries, 1 for 100,000
 *   people or things touched, 1 for a public authority acting; one less when the brand
 *   is involved rather than the subject, when the event is over (resolved; not for an
 *   accusation: a row ended leaves what was said), two less when
 *   the coverage reports it did not happen (denied); an opinion piece or criticism
 *   argues, it reports no wrongdoing: medium at most unless people were hurt; an allegation
 *   with nobody hurt is high at most, as is an accident that hurt nobody and a recall the
 *   brand is already running where nobody died and fewer than 100,000 are touched.
 */
export function judgeSeverity(
  situation: Situation,
  scored: Scored,
): { severity: Severity; reasons: Reason[] } {
  // A fact read from no sentence (no event) explains nothing on the story page.
  const facts = situation.facts
    .filter((f) => f.sentence)
    .map((f) => ({ topic: f.fact, signal: f.value, sentence: f.sentence }));
  if (!ownsStory(situation.role)) {
    return { severity: 'low', reasons: facts };
  }
  const type = eventType(situation.event);
  if (type.polarity !== 'adverse') return { severity: 'low', reasons: facts };
  // Another risk counts where the sentence naming the brand that tells it reports an
  // adverse event of a kind (a fine, a flaw, a recall), not where its word merely stands
  // ("a review of its regulatory filings"; a critic's conviction "in a Dutch court").
  const eventful = new Set(
    scored.reasons
      .filter(
        (r) => topicWeight(r.topic) > 0 && RISK_EVENTS.some((e) => e.phrases!.test(r.sentence)),
      )
      .map((r) => r.topic),
  );
  const reported = (topic: string) => eventful.has(topic);
  const others = scored.topics
    .filter((t) => t !== type.topic && topicWeight(t) > 0 && reported(t))
    .reduce((sum, t) => sum + topicWeight(t), 0);
  // An intensifier ("millions of", "massive") counts where it tells the event itself, not
  // anywhere near the brand ("a handful of harassers among his millions of supporters").
  const intensified =
    situation.harm.deaths ||
    scored.reasons.some((r) => r.topic === 'intensifier' && type.phrases?.test(r.sentence));
  let score =
    type.weight +
    Math.min(2, type.weight, others) +
    (intensified ? 2 : 0) +
    (situation.harm.injuries ? 1 : 0);
  // Many people touched (a shutoff for 375,000 people, two million records) weighs more.
  if (atScale(situation.harm.scale)) score += 1;
  // A public authority acting (an attorney general, a regulator, prosecutors) weighs more
  // than a league's or an association's sanction.
  if (
    (situation.event === 'regulator-action' || situation.event === 'lawsuit') &&
    PUBLIC_AUTHORITY.test(eventSentence(situation))
  ) {
    score += 1;
  }
  // Those the event touches who cannot protect themselves, or a vote, in a sentence telling
  // it: the public holds a brand to more there ("accused of trying to deceive voters").
  const telling = [
    eventSentence(situation),
    ...situation.named.filter((n) => type.phrases?.test(n)),
  ];
  if (telling.some((t) => VULNERABLE.test(t))) score += 1;
  if (situation.role === 'involved') score -= 1;
  // An accusation made in public is not unsaid when the row ends: only a problem fixed
  // weighs less once over.
  if (situation.status === 'resolved' && situation.event !== 'accusation') score -= 1;
  if (situation.status === 'denied') score -= 2;
  // Opinion and criticism argue; they report no wrongdoing: medium at most.
  const hurt = situation.harm.deaths || situation.harm.injuries;
  if ((situation.opinion || situation.event === 'criticism') && !hurt) score = Math.min(score, 2);
  // An allegation nobody has confirmed, with nobody hurt, is high at most: a crisis is
  // what happened, not what one piece says happened.
  if (situation.status === 'alleged' && !hurt) score = Math.min(score, 4);
  // An accident that hurt nobody (a rocket lost on the pad) is grave, not a crisis of
  // public safety: high at most.
  if (situation.event === 'accident' && !hurt) score = Math.min(score, 4);
  // A recall the brand is already running, with nobody killed and not at scale, is being
  // handled: high at most (a consultant's read of the demo's voluntary kettle recall,
  // "eleven reports of minor burn injuries", rated critical).
  if (recallUnderWay(situation) && !situation.harm.deaths && !atScale(situation.harm.scale)) {
    score = Math.min(score, 4);
  }
  const signals = scored.reasons.filter(
    (r) => r.topic === 'intensifier' || topicWeight(r.topic) > 0,
  );
  return { severity: severityOfScore(Math.max(0, score)), reasons: [...facts, ...signals] };
}

/** Adverse events of a kind that has a topic (a fine, a flaw, a recall). */
const RISK_EVENTS = EVENT_TYPES.filter(
  (e) => e.polarity === 'adverse' && e.topic !== undefined && e.phrases,
);

const VULNERABLE =
  /\b(?:voters?|elections?|electoral|ballots?|children|minors|teenagers|teens|kids|pupils|babies|patients)\b/i;

const PUBLIC_AUTHORITY =
  /\b(?:attorneys? general|regulators?|(?:competition|data[- ]protection|financial conduct|consumer protection) (?:authority|commission|agency)|ftc|sec\b|european commission|department of justice|justice department|prosecutors?|ministry|police)\b/i;

/** People or things counted at this many and more make a story graver. */
const AT_SCALE = 100_000;

/** Whether a count ("375,000 people", "2 million users", "1.5bn records") reaches AT_SCALE. */
export function atScale(scale: string | null): boolean {
  if (!scale) return false;
  const m = /(\d[\d,.]*)\s*(million|billion|thousand|m\b|bn\b)?/i.exec(scale);
  if (!m) return false;
  const n = Number(m[1]!.replace(/,/g, ''));
  const unit = (m[2] ?? '').toLowerCase();
  const times = unit.startsWith('b')
    ? 1e9
    : unit.startsWith('m')
      ? 1e6
      : unit === 'thousand'
        ? 1e3
        : 1;
  return n * times >= AT_SCALE;
}

/**
 * The topics of the story for the brand: its event's first, then those the sentences
 * naming the brand report (`own`: scored on them alone, so a risk told beside the brand
 * does not tag its story).
 */
export function judgeTopics(situation: Situation, own: Scored): string[] {
  if (!ownsStory(situation.role)) return [];
  const type = eventType(situation.event);
  // An adverse story is tagged with its risks, good news with what is good in it, not
  // with the risks standing near it ("a lawsuit years ago"): "the American Music Awards"
  // is no recognition of a label in a row.
  const found = own.topics.filter((t) =>
    type.polarity === 'adverse' ? topicWeight(t) > 0 : topicWeight(t) === 0,
  );
  return [...(type.topic ? [type.topic] : []), ...found];
}
