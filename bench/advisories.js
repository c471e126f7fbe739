/**
 * `node bench/advisories.js <dir> [--proposals] [--quotes]` (after `npm run build`): the
 * built-in advisories of docs/pipeline.md's evaluation, written out in Markdown from the
 * pages of scrapinghub/article-extraction-benchmark in <dir> (html/ and ground-truth.json,
 * as eval:pipeline reads them), for the pairs and contexts of bench/advisory-picks.json.
 * `--proposals` prints the ten proposals instead. The summaries' quoted sentences are the
 * articles' own words: they are printed only with `--quotes`, to read them beside the
 * pages, and never go into the repository (the docs carry their length and place).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { firstSource, generateAdvisory } from '../dist/pipeline/builtin-advisor.js';
import { withJudgement } from '../dist/pipeline/judgement.js';
import { readPage } from '../dist/pipeline/read-article.js';
import { rethinkAdvisory } from '../dist/pipeline/rethink.js';
import { situationOf } from '../dist/pipeline/situation.js';
import { OWN_LINE } from './summary-lines.js';

const args = process.argv.slice(2);
const dir = args.find((a) => !a.startsWith('--'));
if (!dir) {
  console.error('usage: node bench/advisories.js <dir> [--proposals] [--quotes]');
  process.exit(1);
}
const proposals = args.includes('--proposals');
const quotes = args.includes('--quotes');
const truth = JSON.parse(readFileSync(join(dir, 'ground-truth.json'), 'utf8'));
const labels = JSON.parse(readFileSync('bench/situation-labels.json', 'utf8')).pairs;
const { pairs, contexts } = JSON.parse(readFileSync('bench/advisory-picks.json', 'utf8'));
const files = readdirSync(join(dir, 'html'));

/** The article of a page, read as the service reads one. */
function articleOf(id) {
  const file = files.find((f) => f.startsWith(id));
  const full = file.replace(/\.html(\.gz)?$/, '');
  const raw = readFileSync(join(dir, 'html', file));
  const body = raw[0] === 0x1f ? gunzipSync(raw) : raw;
  const read = readPage({ url: truth[full].url, body, contentType: null }, new Date());
  if (!read.ok) throw new Error(`${id}: ${read.reason}`);
  return read.article;
}

const item = (text) =>
  quotes || OWN_LINE.test(text)
    ? text
    : `“…” (a sentence of the article, ${text.split(/\s+/).length} words)`;

/**
 * A step as printed: the article's words a step quotes ("the coverage says “…”") are shown
 * by their length, as the summaries' are, unless --quotes.
 */
const step = (text) =>
  quotes
    ? text
    : text.replace(/“([^”]*)”/g, (_, q) => `“…” (${q.split(/\s+/).length} words of the article)`);

/** A plan, one numbered line a phase. */
function printPlan(phases) {
  for (const [k, ph] of phases.entries()) {
    console.log(`${k + 1}. *${ph.title}*: ${ph.actions.map(step).join('; ')}.`);
  }
}

let n = 0;
for (const key of pairs) {
  const [page, host] = key.split(':');
  const label = labels.find((l) => l.page === page && l.brand.host === host);
  const article = articleOf(page);
  const brand = { aliases: [], ...label.brand };
  const source = firstSource({ ...article, published_at: article.published_at ?? '2026-11-28' });
  const g = generateAdvisory([source], brand);
  n++;
  if (!proposals) {
    const s = situationOf(source, brand);
    const sentiment = withJudgement(source, brand).sentiment;
    console.log(
      `\n**${n}. ${label.brand.name}**, ${article.publisher}: “${article.title}” (page \`${page}\`). Analyst: ${label.severities.join(' or ')}.`,
    );
    console.log(
      `Situation: ${s.role}, ${s.event}${s.status === 'none' ? '' : ` (${s.status})`}${s.opinion ? ', opinion piece' : ''}; sentiment ${sentiment ?? 'not scored'}. **${g.severity}** · ${g.assessment} · urgency ${g.urgency} · ${g.topics.join(', ')}.\n`,
    );
    for (const i of g.executiveSummary) console.log(`- ${item(i.text)} [${i.cites.join(', ')}]`);
    console.log('');
    printPlan(g.phases);
  } else if (contexts[key]) {
    const live = {
      assessment: g.assessment,
      urgency: g.urgency,
      phases: g.phases.map((ph, i) => ({ number: i + 1, ...ph, started: i === 0 })),
    };
    const r = rethinkAdvisory({ sources: [source], context: contexts[key], brand, live });
    console.log(
      `\n**${label.brand.name}** (advisory above: ${g.assessment}, urgency ${g.urgency}; phase 1 started). Context: “${contexts[key]}”`,
    );
    console.log(
      `Proposal: **${r.assessment} · urgency ${r.urgency}**: ${r.contextEffect ?? 'the context does not move the judgement'}.\n`,
    );
    printPlan(r.phases);
  }
}
