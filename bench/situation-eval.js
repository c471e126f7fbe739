/**
 * How well the pipeline judges a brand's situation, against hand labels of real pages
 * (bench/situation-labels.json; docs/pipeline.md, "How well it judges"). For each labelled
 * (page, brand) pair: whether a story would be made (the brand is detected), the severity
 * and the role it would get, the sign of its sentiment, and the steps of its plan that
 * the labels mark harmful. A pair the pipeline does not detect makes no story: no alarm,
 * no plan, severity low.
 */
import { firstSource, generateAdvisory } from '../dist/pipeline/builtin-advisor.js';
import { withJudgement } from '../dist/pipeline/judgement.js';
import { mentionOf } from '../dist/pipeline/mentions.js';

/**
 * The kinds of step the labels can mark harmful, by how a plan writes them. A step
 * that states its condition ("If the review confirms …") waits for a finding, and one
 * that says "Do not" forbids the move: neither does the harm.
 */
export const STEP_KINDS = {
  'notify-regulator':
    /\bnotify (?:the )?[\w-]*\s*(?:authorit|regulator)|\binform (?:the )?[\w-]*\s*(?:authorit|regulator)/i,
  'notify-affected':
    /\bnotice to the people affected|\btell customers whether|\bnotify (?:customers|the people|those affected)/i,
  'credit-monitoring': /\bcredit monitoring|\bidentity protection/i,
  'recall-or-stop-sales': /\bstop sales|\brecall\b/i,
  apology: /\bapolog/i,
  'public-rebuttal':
    /\bcorrect the record|\bsend the publishers? the correction|\brebut|\bpublish the clarification/i,
  compensation: /\bremed(?:y|ies)\b|\brefund|\bcompensat|\boffer protection/i,
  'legal-threat': /\blegal action|\bcease and desist|\bsue\b/i,
  'crisis-statement':
    /\bholding statement|\banswer (?:the publishers )?with the (?:approved )?statement|\bsend the (?:approved )?statement|\baware of the allegation/i,
};
const CONDITIONAL =
  /^(?:if|once|where|when|unless|only if)\b|\bif (?:the|it|any|people|personal|they|a|an)\b|\bwhere (?:due|the law)/i;
const FORBIDS = /^do not\b/i;

/** The kinds a step would do, unconditionally; none for a conditional or forbidding one. */
export function harmfulKinds(step) {
  if (CONDITIONAL.test(step) || FORBIDS.test(step)) return [];
  return Object.entries(STEP_KINDS)
    .filter(([, pattern]) => pattern.test(step))
    .map(([kind]) => kind);
}

const SEVERITY = ['low', 'medium', 'high', 'critical'];
const signOf = (s) => (s === null ? null : s > 0.05 ? 1 : s < -0.05 ? -1 : 0);
const pct = (n, d) => (d === 0 ? null : Math.round((1000 * n) / d) / 10);

/**
 * `articles`: id (12 characters) → the page's article as read; `labels` the file's pairs.
 * `situationOf` is the pipeline's situation reader when it has one (older builds do not).
 */
export function situationScores(articles, labels, situationOf, today) {
  const t = {
    pairs: 0,
    detected: 0,
    severity_agreed: 0,
    false_alarms: 0,
    missed_alarms: 0,
    role_labelled: 0,
    role_agreed: 0,
    side_agreed: 0,
    event_labelled: 0,
    event_agreed: 0,
    sentiment_clear: 0,
    sentiment_sign_agreed: 0,
    sentiment_neutral: 0,
    sentiment_unscored: 0,
    sentiment_neutral_agreed: 0,
    advisories: 0,
    harmful_steps: 0,
    advisories_with_harm: 0,
    wrong: [],
    harms: [],
  };
  for (const pair of labels.pairs) {
    const article = articles.get(pair.page);
    if (!article) continue;
    t.pairs++;
    const brand = { aliases: [], ...pair.brand };
    const found = mentionOf(article, brand) !== null;
    const source = firstSource({ ...article, published_at: article.published_at ?? today });
    const advisory = found ? generateAdvisory([source], brand) : null;
    const severity = advisory?.severity ?? 'low';
    if (found) t.detected++;
    const agreed = pair.severities.includes(severity);
    if (agreed) t.severity_agreed++;
    const alarm = SEVERITY.indexOf(severity) >= 1;
    if (alarm && pair.severities.every((s) => s === 'low')) t.false_alarms++;
    if (!alarm && pair.severities.every((s) => s !== 'low')) t.missed_alarms++;
    const situation = found && situationOf ? situationOf(article, brand) : null;
    const role = situation ? situation.role : found ? null : 'boilerplate';
    // The event of the brand's own story ('other' in the labels: none of the list fits,
    // which the pipeline calls a profile, or none when the brand is only involved).
    if (situation && (pair.role === 'subject' || pair.role === 'involved')) {
      t.event_labelled++;
      const want = pair.event === 'other' ? ['profile', 'none'] : [pair.event];
      if (want.includes(situation.event)) t.event_agreed++;
    }
    if (role !== null) {
      t.role_labelled++;
      if (role === pair.role) t.role_agreed++;
      // The distinction the judgement turns on: the brand's own story, or an aside.
      const own = (r) => r === 'subject' || r === 'involved';
      if (own(role) === own(pair.role)) t.side_agreed++;
    }
    // The sentiment a story of the brand would store for this source.
    const sentiment = found ? signOf(withJudgement(source, brand).sentiment) : null;
    if ((pair.sentiment === 1 || pair.sentiment === -1) && sentiment === null)
      t.sentiment_unscored++;
    else if (pair.sentiment === 1 || pair.sentiment === -1) {
      t.sentiment_clear++;
      if (sentiment === pair.sentiment) t.sentiment_sign_agreed++;
    } else if (pair.sentiment === 0 && sentiment !== null) {
      t.sentiment_neutral++;
      if (sentiment === 0) t.sentiment_neutral_agreed++;
    }
    if (!agreed || (role !== null && role !== pair.role)) {
      t.wrong.push(
        `${pair.page} ${pair.brand.host}: ${severity}${agreed ? '' : ` (labels ${pair.severities.join('/')})`}, role ${role}${role === pair.role ? '' : ` (label ${pair.role})`}`,
      );
    }
    if (advisory) {
      t.advisories++;
      const bad = advisory.phases
        .flatMap((p) => p.actions)
        .filter((a) => harmfulKinds(a).some((k) => pair.harmful.includes(k)));
      t.harmful_steps += bad.length;
      if (bad.length > 0) {
        t.advisories_with_harm++;
        t.harms.push(`${pair.page} ${pair.brand.host}: ${bad.join(' | ')}`);
      }
    }
  }
  return {
    pairs: t.pairs,
    detected: t.detected,
    severity_agreement: pct(t.severity_agreed, t.pairs),
    false_alarms: t.false_alarms,
    missed_alarms: t.missed_alarms,
    role_accuracy: pct(t.role_agreed, t.role_labelled),
    story_or_aside_accuracy: pct(t.side_agreed, t.role_labelled),
    event_accuracy: pct(t.event_agreed, t.event_labelled),
    event_pairs: t.event_labelled,
    sentiment_sign_agreement: pct(t.sentiment_sign_agreed, t.sentiment_clear),
    sentiment_clear_pairs: t.sentiment_clear,
    sentiment_clear_unscored: t.sentiment_unscored,
    sentiment_neutral_agreement: pct(t.sentiment_neutral_agreed, t.sentiment_neutral),
    advisories: t.advisories,
    harmful_steps: t.harmful_steps,
    advisories_with_harm: t.advisories_with_harm,
    wrong: t.wrong,
    harms: t.harms,
  };
}
