/**
 * `npm run eval:pipeline -- <dir> [--peer FILE] [--json]`: how well the pipeline reads real
 * pages and feeds, on any directory of material with ground truth (docs/pipeline.md,
 * "How well it works on real pages"). The material stays outside the repository.
 *
 * Pages, in either layout:
 * - scrapinghub/article-extraction-benchmark's: `html/<id>.html.gz` (or `.html`) beside a
 *   `ground-truth.json` mapping each id to `{articleBody, url}`;
 * - pairs: `<name>.html` with `<name>.txt` (the article's text) or `<name>.json`
 *   (`{articleBody, url?}`).
 * Feeds: every `*.xml`, `*.rss`, `*.atom`, `*.rdf` in the directory (gzipped ones too).
 *
 * Printed: the token F1 of our article text against the true text (lower-cased words,
 * counted as multisets, per page, then the mean), pages below 0.5 and 0.9, the worst five;
 * pages that still hold U+FFFD once decoded; feed items and dates found; and the rate of
 * reading (decode + extract + language) and detection (every page's text against one brand
 * per page's host, or the brands of `--brands FILE`, a JSON array as `brs analyze`
 * takes, and then the severity each mention would get and the quality of the summary its
 * story would get: items that are not whole sentences, quoted items their source does not
 * hold, near-duplicate items, and how many say who is affected and what is at stake)
 * on one core. `--peer FILE` scores another extractor's output on the
 * same pages in the same run (a JSON object id → {articleBody}, as the benchmark's
 * `output/*.json`), as the baseline.
 *
 * `--labels FILE` (bench/mention-labels.json for the benchmark's pages) scores detection
 * against hand labels: precision and recall per brand class (ordinary names, names that
 * are common words), for the matcher as configured and for the plain matcher (every
 * brand's proper-noun context off) in the same run, with the pairs each gets wrong.
 *
 * `--events FILE` (bench/event-labels.json) scores clustering on pairs of pages: which
 * report the same event, by different publishers, and which are unrelated (every other
 * pair, as if all arrived the same day). The pipeline's weighted terms (with the rarity
 * of words across all the pages, as a brand's recent coverage) against plain word counts,
 * each at its own bar, in the same run.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gunzipSync } from 'node:zlib';
import { analyzePage, brandIndex } from '../dist/pipeline/analyze-page.js';
import { firstSource, generateAdvisory } from '../dist/pipeline/builtin-advisor.js';
import { decodeBody } from '../dist/pipeline/charset.js';
import {
  brandWords,
  eventSimilarity,
  headlineTerms,
  SAME_EVENT_SIMILARITY,
  similarity,
  stopwordsFor,
  terms,
  weighByPool,
} from '../dist/pipeline/cluster.js';
import { parseFeed } from '../dist/pipeline/feed.js';
import { findMentions } from '../dist/pipeline/mentions.js';
import { readPage } from '../dist/pipeline/read-article.js';
import { situationOf } from '../dist/pipeline/situation.js';
import { situationScores } from './situation-eval.js';
import { OWN_LINE } from './summary-lines.js';

const args = process.argv.slice(2);
const json = args.includes('--json');
const option = (flag) => {
  const at = args.indexOf(flag);
  return at >= 0 ? args[at + 1] : undefined;
};
const peerFile = option('--peer');
const brandsFile = option('--brands');
const labelsFile = option('--labels');
const eventsFile = option('--events');
const situationsFile = option('--situations');
const dir = args.find(
  (a, i) =>
    !a.startsWith('--') &&
    !['--peer', '--brands', '--labels', '--events', '--situations'].includes(args[i - 1]),
);
if (!dir) {
  console.error('usage: npm run eval:pipeline -- <dir> [--peer FILE] [--json]');
  process.exit(1);
}

const bytesOf = (path) => {
  const raw = readFileSync(path);
  return raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw;
};

/** The pages with their true text: [{id, url, bytes, truth}]. */
function pagesOf(root) {
  const truthFile = join(root, 'ground-truth.json');
  if (existsSync(truthFile)) {
    const truth = JSON.parse(readFileSync(truthFile, 'utf8'));
    const htmlDir = join(root, 'html');
    return readdirSync(htmlDir)
      .filter((f) => /\.html?(\.gz)?$/.test(f))
      .map((f) => {
        const id = f.replace(/\.html?(\.gz)?$/, '');
        return {
          id,
          url: truth[id]?.url,
          bytes: bytesOf(join(htmlDir, f)),
          truth: truth[id]?.articleBody,
        };
      })
      .filter((p) => typeof p.truth === 'string');
  }
  return readdirSync(root)
    .filter((f) => /\.html?(\.gz)?$/.test(f))
    .map((f) => {
      const id = f.replace(/\.html?(\.gz)?$/, '');
      const txt = join(root, `${id}.txt`);
      const meta = join(root, `${id}.json`);
      const truth = existsSync(txt)
        ? { articleBody: readFileSync(txt, 'utf8') }
        : existsSync(meta)
          ? JSON.parse(readFileSync(meta, 'utf8'))
          : null;
      return { id, url: truth?.url, bytes: bytesOf(join(root, f)), truth: truth?.articleBody };
    })
    .filter((p) => typeof p.truth === 'string');
}

const WORD = /[\p{L}\p{N}]+/gu;
const words = (text) => (text ?? '').toLowerCase().match(WORD) ?? [];

/** Multiset token F1 of a text against the truth; 1 when both are empty. */
function tokenF1(truth, text) {
  const want = new Map();
  for (const w of words(truth)) want.set(w, (want.get(w) ?? 0) + 1);
  const got = words(text);
  let common = 0;
  for (const w of got) {
    const n = want.get(w) ?? 0;
    if (n > 0) {
      common++;
      want.set(w, n - 1);
    }
  }
  const t = words(truth).length;
  if (t === 0 && got.length === 0) return 1;
  if (common === 0) return 0;
  const precision = common / got.length;
  const recall = common / t;
  return (2 * precision * recall) / (precision + recall);
}

function summary(scores) {
  const values = scores.map((s) => s.f1).sort((a, b) => a - b);
  const mean = values.reduce((a, b) => a + b, 0) / (values.length || 1);
  return {
    pages: values.length,
    mean: round(mean),
    median: round(values[Math.floor(values.length / 2)] ?? 0),
    below_0_5: values.filter((v) => v < 0.5).length,
    below_0_9: values.filter((v) => v < 0.9).length,
    worst: [...scores]
      .sort((a, b) => a.f1 - b.f1)
      .slice(0, 5)
      .map((s) => ({ id: s.id, f1: round(s.f1) })),
  };
}
const round = (x) => Math.round(x * 1000) / 1000;

/** Precision and recall per brand class of each matcher, with the pairs it gets wrong. */
function detectionScores({ classOf, truth, found }) {
  const out = {};
  for (const [kind, got] of Object.entries(found)) {
    out[kind] = {};
    for (const cls of new Set(classOf.values())) {
      const mine = (pairs) => [...pairs].filter((k) => classOf.get(k.split(' ')[0]) === cls);
      const want = mine(truth);
      const have = mine(got);
      const tp = have.filter((k) => truth.has(k)).length;
      out[kind][cls] = {
        labelled: want.length,
        found: have.length,
        precision: round(tp / (have.length || 1)),
        recall: round(tp / (want.length || 1)),
        false_positives: have.filter((k) => !truth.has(k)),
        missed: want.filter((k) => !got.has(k)),
      };
    }
  }
  return out;
}

const WHOLE_SENTENCE = /^["“‘(]?[\p{Lu}\p{N}][\s\S]*[.!?…]["”’)]?$/u;
/** The summary's own lines: what the first source reports (or names in passing), who covers it. */
const AFFECTED_WORDS =
  /\b(?:customers?|users?|consumers?|employees?|staff|workers?|passengers?|patients?|residents?|people|owners?|subscribers?|investors?|shareholders?|children|families)\b|\b\d[\d,.]*\s*(?:million |billion |thousand )?(?:units|vehicles|cars|accounts|records|homes|jobs|devices)\b/i;

/** Counts what is wrong with one summary, and which parts it has. */
function judgeSummary(tally, items, source) {
  tally.summaries++;
  tally.items += items.length;
  const held = new Set(words(`${source.title} ${source.text}`));
  const quoted = items.filter((i) => !OWN_LINE.test(i.text));
  tally.quoted += quoted.length;
  for (const item of quoted) {
    if (!WHOLE_SENTENCE.test(item.text)) tally.not_sentences++;
    if (words(item.text).filter((w) => !held.has(w)).length > 2) tally.unsupported++;
  }
  // Two quoted items that say nearly the same (the headline and its lede may share words).
  const vectors = quoted.map((i) => terms({ title: '', text: i.text }));
  for (let i = 0; i < vectors.length; i++) {
    for (let j = i + 1; j < vectors.length; j++) {
      if (similarity(vectors[i], vectors[j]) >= 0.5) tally.near_duplicates++;
    }
  }
  // A quoted item names who is affected: people, or a count of them or of things.
  if (quoted.some((i) => AFFECTED_WORDS.test(i.text))) tally.with_affected++;
}

/** Plain counts of content words, the title's three times: the clustering before issue 15. */
function countsOf(article) {
  const counts = new Map();
  const stop = stopwordsFor(article.language);
  const add = (text, weight) => {
    for (const w of text.toLowerCase().match(WORD) ?? []) {
      if (w.length >= 3 && !stop.has(w)) counts.set(w, (counts.get(w) ?? 0) + weight);
    }
  };
  add(article.title, 3);
  add(article.text, 1);
  return new Map([...counts].sort((a, b) => b[1] - a[1]).slice(0, 100));
}

/**
 * Pairwise precision and recall of same-event decisions, with the pairs wrong; and, with
 * the mention labels, the same among pairs that share a brand (what one brand's stories
 * would see).
 */
function clusteringScores(articles, labels, mentioned, brandsByHost = new Map()) {
  const ids = [...articles.keys()].sort();
  const group = (lists) => {
    const of = new Map();
    lists.forEach((list, i) => {
      for (const id of list) of.set(id, [...(of.get(id) ?? []), i]);
    });
    return (a, b) => (of.get(a) ?? []).some((i) => (of.get(b) ?? []).includes(i));
  };
  const same = group(labels.events);
  const ambiguous = group(labels.ambiguous ?? []);
  const shareBrand = group(Object.values(mentioned ?? {}));
  const score = (joins, onlyShared = false) => {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    const merged = [];
    const missed = [];
    for (let i = 0; i < ids.length; i++) {
      for (let j = i + 1; j < ids.length; j++) {
        const [a, b] = [ids[i], ids[j]];
        if (onlyShared && !shareBrand(a, b)) continue;
        const truth = same(a, b);
        if (!truth && ambiguous(a, b)) continue;
        const { join, s } = joins(i, j);
        if (join && truth) tp++;
        else if (join) {
          fp++;
          merged.push(`${a}~${b} ${round(s)}`);
        } else if (truth) {
          fn++;
          missed.push(`${a}~${b} ${round(s)}`);
        }
      }
    }
    return {
      same_event_pairs: tp + fn,
      precision: round(tp / (tp + fp || 1)),
      recall: round(tp / (tp + fn || 1)),
      unrelated_merged: fp,
      merged: merged.slice(0, 10),
      missed: missed.slice(0, 10),
    };
  };
  const weighted = weighByPool(ids.map((id) => terms(articles.get(id))));
  // As a brand's stories compare them: the words of the brands a page names left out.
  const brandWordsOf = (id) =>
    new Set(
      Object.entries(mentioned ?? {})
        .filter(([, list]) => list.includes(id))
        .flatMap(([host]) => [...brandWords(brandsByHost.get(host) ?? { host, name: host })]),
    );
  const headlines = ids.map((id) => headlineTerms(articles.get(id).title, brandWordsOf(id)));
  const pipeline = (i, j) => {
    const joined = eventSimilarity(
      { terms: weighted[i], headline: headlines[i] },
      { terms: weighted[j], headline: headlines[j] },
    );
    return { join: joined !== null, s: joined ?? similarity(weighted[i], weighted[j]) };
  };
  const counts = ids.map((id) => countsOf(articles.get(id)));
  const plain = (i, j) => {
    const s = similarity(counts[i], counts[j]);
    return { join: s >= 0.28, s };
  };
  const out = {
    pipeline: { bar: SAME_EVENT_SIMILARITY, ...score(pipeline) },
    plain: { bar: 0.28, ...score(plain) },
  };
  if (mentioned) {
    out['pipeline, pairs sharing a brand'] = {
      bar: SAME_EVENT_SIMILARITY,
      ...score(pipeline, true),
    };
    out['plain, pairs sharing a brand'] = { bar: 0.28, ...score(plain, true) };
  }
  return out;
}

const report = {};
const pages = pagesOf(dir);
if (pages.length > 0) {
  const now = new Date();
  const hostOf = (url) => {
    try {
      return new URL(url).hostname.replace(/^www\./, '');
    } catch {
      return null;
    }
  };
  const hosts = [...new Set(pages.map((p) => hostOf(p.url)).filter(Boolean))];
  const brands = brandIndex(
    brandsFile
      ? JSON.parse(readFileSync(brandsFile, 'utf8')).map((b) => ({ aliases: [], ...b }))
      : hosts.map((host) => {
          const label = host.split('.')[0];
          return { host, name: label.charAt(0).toUpperCase() + label.slice(1), aliases: [] };
        }),
  );
  const labels = labelsFile ? JSON.parse(readFileSync(labelsFile, 'utf8')) : null;
  const labelled = labels && {
    configured: brandIndex(labels.brands.map((b) => ({ aliases: [], ...b }))),
    plain: brandIndex(
      labels.brands.map((b) => ({ aliases: [], ...b, match: { ...b.match, strict: 'off' } })),
    ),
    classOf: new Map(labels.brands.map((b) => [b.host, b.class])),
    truth: new Set(
      Object.entries(labels.mentioned).flatMap(([host, ids]) => ids.map((id) => `${host} ${id}`)),
    ),
    found: { configured: new Set(), plain: new Set() },
  };
  const articlesRead = new Map();
  const severities = { low: 0, medium: 0, high: 0, critical: 0 };
  const summaries = {
    summaries: 0,
    items: 0,
    quoted: 0,
    not_sentences: 0,
    unsupported: 0,
    near_duplicates: 0,
    with_affected: 0,
    with_stakes: 0,
  };
  let mentions = 0;
  const scores = [];
  let failed = 0;
  let replacement = 0;
  const languages = {};
  const charsets = {};
  let read = 0;
  let detect = 0;
  for (const p of pages) {
    const url = p.url ?? `https://example.org/${p.id}`;
    const t0 = performance.now();
    const out = readPage({ url, body: p.bytes, contentType: null }, now);
    const t1 = performance.now();
    read += t1 - t0;
    if (!out.ok) {
      failed++;
      scores.push({ id: p.id, f1: 0 });
      continue;
    }
    findMentions(out.article, brands);
    detect += performance.now() - t1;
    articlesRead.set(p.id.slice(0, 12), out.article);
    if (labelled) {
      for (const kind of ['configured', 'plain']) {
        for (const m of findMentions(out.article, labelled[kind])) {
          labelled.found[kind].add(`${m.brand.host} ${p.id.slice(0, 12)}`);
        }
      }
    }
    if (brandsFile) {
      // The severity a story of each brand the page mentions would get.
      const found = analyzePage(out.article, brands, now.toISOString()).mentions;
      for (const m of found) {
        mentions++;
        severities[m.severity]++;
        const brand = brands.occurrences(m.brand)[0]?.brand;
        const source = firstSource({
          ...out.article,
          published_at: now.toISOString().slice(0, 10),
        });
        judgeSummary(summaries, generateAdvisory([source], brand).executiveSummary, source);
      }
    }
    if (out.article.text.includes('\uFFFD') || out.article.title.includes('\uFFFD')) replacement++;
    languages[out.article.language ?? 'unknown'] =
      (languages[out.article.language ?? 'unknown'] ?? 0) + 1;
    charsets[out.article.charset] = (charsets[out.article.charset] ?? 0) + 1;
    scores.push({ id: p.id, f1: tokenF1(p.truth, out.article.text) });
  }
  report.articles = {
    ...summary(scores),
    not_extracted: failed,
    with_replacement_characters: replacement,
    languages,
    charsets,
    articles_per_second: round((pages.length * 1000) / (read + detect)),
    reading_ms_per_article: round(read / pages.length),
    detection_ms_per_article: round(detect / pages.length),
    ...(brandsFile && { brand_mentions: mentions, severities, summaries }),
  };
  if (labelled) report.detection = detectionScores(labelled);
  if (eventsFile) {
    report.clustering = clusteringScores(
      articlesRead,
      JSON.parse(readFileSync(eventsFile, 'utf8')),
      labels?.mentioned,
      new Map((labels?.brands ?? []).map((b) => [b.host, b])),
    );
  }
  if (situationsFile) {
    report.situations = situationScores(
      articlesRead,
      JSON.parse(readFileSync(situationsFile, 'utf8')),
      situationOf,
      now.toISOString().slice(0, 10),
    );
  }
  if (peerFile) {
    const peer = JSON.parse(readFileSync(peerFile, 'utf8'));
    const output = peer.output && typeof peer.output === 'object' ? peer.output : peer;
    report.peer = {
      file: basename(peerFile),
      ...summary(
        pages.map((p) => ({ id: p.id, f1: tokenF1(p.truth, output[p.id]?.articleBody ?? '') })),
      ),
    };
  }
}

const feeds = readdirSync(dir).filter((f) => /\.(xml|rss|atom|rdf)(\.gz)?$/i.test(f));
if (feeds.length > 0) {
  const fetchedAt = new Date();
  let items = 0;
  let dated = 0;
  let unreadable = 0;
  let replacement = 0;
  for (const f of feeds) {
    const { text } = decodeBody(bytesOf(join(dir, f)), null, 'xml');
    if (text.includes('\uFFFD')) replacement++;
    try {
      const found = parseFeed(text, `https://feeds.example.org/${f}`, fetchedAt);
      items += found.length;
      dated += found.filter((i) => i.published_at).length;
    } catch {
      unreadable++;
    }
  }
  report.feeds = {
    feeds: feeds.length,
    unreadable,
    items,
    items_dated: dated,
    with_replacement_characters: replacement,
  };
}

if (json) {
  process.stdout.write(`${JSON.stringify(report)}\n`);
} else {
  const a = report.articles;
  if (a) {
    console.log(`pages: ${a.pages} (${a.not_extracted} not extracted)`);
    console.log(
      `article text, token F1: mean ${a.mean}, median ${a.median}, ${a.below_0_5} pages below 0.5, ${a.below_0_9} below 0.9`,
    );
    console.log(`  worst: ${a.worst.map((w) => `${w.id.slice(0, 12)} ${w.f1}`).join(', ')}`);
    if (report.peer) {
      const p = report.peer;
      console.log(
        `peer ${p.file}: mean ${p.mean}, median ${p.median}, ${p.below_0_5} below 0.5, ${p.below_0_9} below 0.9`,
      );
    }
    console.log(
      `decoding: ${a.with_replacement_characters} pages with U+FFFD; charsets ${JSON.stringify(a.charsets)}`,
    );
    console.log(`languages: ${JSON.stringify(a.languages)}`);
    if (a.severities) {
      const high = a.severities.high + a.severities.critical;
      console.log(
        `brand mentions: ${a.brand_mentions}; severity ${JSON.stringify(a.severities)}, high or critical ${high} (${Math.round((100 * high) / (a.brand_mentions || 1))}%)`,
      );
    }
    for (const [kind, classes] of Object.entries(report.detection ?? {})) {
      for (const [cls, d] of Object.entries(classes)) {
        console.log(
          `detection (${kind}), ${cls} names: precision ${d.precision}, recall ${d.recall} (${d.found} found, ${d.labelled} labelled; false: ${d.false_positives.join(', ') || 'none'}; missed: ${d.missed.join(', ') || 'none'})`,
        );
      }
    }
    for (const [kind, c] of Object.entries(report.clustering ?? {})) {
      console.log(
        `clustering (${kind}, bar ${c.bar}): ${c.same_event_pairs} same-event pairs, precision ${c.precision}, recall ${c.recall}, ${c.unrelated_merged} unrelated pairs merged (${c.merged.join(', ') || 'none'}; missed: ${c.missed.join(', ') || 'none'})`,
      );
    }
    const st = report.situations;
    if (st) {
      console.log(
        `situations (${st.pairs} labelled pairs, ${st.detected} detected): severity agreement ${st.severity_agreement}%, ${st.false_alarms} medium-or-above where the labels say low, ${st.missed_alarms} low where they say medium or above; role accuracy ${st.role_accuracy}% (the brand's story or an aside: ${st.story_or_aside_accuracy}%); event ${st.event_accuracy}% of ${st.event_pairs} stories of the brand; sentiment sign ${st.sentiment_sign_agreement}% of ${st.sentiment_clear_pairs} clear pairs scored (${st.sentiment_clear_unscored} more unscored: not in English, or a page read only in part) (neutral ones read neutral: ${st.sentiment_neutral_agreement}%); ${st.harmful_steps} harmful steps in ${st.advisories_with_harm} of ${st.advisories} advisories`,
      );
      if (args.includes('--verbose')) {
        for (const w of st.wrong) console.log(`  wrong: ${w}`);
        for (const h of st.harms) console.log(`  harm: ${h}`);
      }
    }
    const sm = a.summaries;
    if (sm) {
      console.log(
        `summaries: ${sm.summaries}, ${sm.items} items (${sm.quoted} quoted): ${sm.not_sentences} not whole sentences, ${sm.unsupported} not held by their source, ${sm.near_duplicates} near-duplicate pairs of quoted items; ${sm.with_affected} say who is affected`,
      );
    }
    console.log(
      `speed, one core: ${a.articles_per_second} articles/s (reading ${a.reading_ms_per_article} ms, detection ${a.detection_ms_per_article} ms per article)`,
    );
  }
  const fd = report.feeds;
  if (fd) {
    console.log(
      `feeds: ${fd.feeds} (${fd.unreadable} unreadable), ${fd.items} items, ${fd.items_dated} dated, ${fd.with_replacement_characters} with U+FFFD`,
    );
  }
  if (!a && !fd) console.log('no pages with ground truth and no feeds in', dir);
}
