/**
 * `npm run bench:pipeline`: articles per second through the monitoring pipeline as the
 * service runs it (detect → cluster → score → generate with the built-in generator), in
 * memory, for 10,000 generated articles against 1,000 brands. In the same run:
 *
 * - the same pipeline against 100 and 10,000 brands: matching is indexed by word, so the
 *   rate must stay flat as brands are added;
 * - the baseline: detection as one whole-word regular expression per brand, tried in
 *   turn (the obvious way, and what `mentionsBrand` did before the matcher), on a sample
 *   of the articles at 100 and 1,000 brands: it slows linearly.
 *
 * The articles are generated from a fixed seed: events of 1 to 8 articles by different
 * publishers, reworded, within three days; one article in ten mentions no brand. The
 * clustering is checked against the events the generator made (pairwise precision and
 * recall), so a fast but wrong pipeline does not pass unnoticed.
 *
 * And the firehose (issue 43): short posts, one in twenty naming a brand, matched one by
 * one against 10,000 brands as a stream of social posts would be, 1,000,000 of them, with
 * the heap read every 100,000 to show it stays flat; the per-brand regex baseline on a
 * sample of 10,000 posts against 1,000 brands in the same run.
 *
 * BENCH_ARTICLES=<n> changes the number of articles (default 10,000), BENCH_POSTS=<n> the
 * number of posts (default 1,000,000).
 */
import { performance } from 'node:perf_hooks';
import { BrandMatcher } from '../dist/pipeline/brand-matcher.js';
import { generateAdvisory } from '../dist/pipeline/builtin-advisor.js';
import { brandWords, EVENT_WINDOW_DAYS, findEvent, terms } from '../dist/pipeline/cluster.js';

const ARTICLES = Number(process.env.BENCH_ARTICLES ?? 10_000);
const POSTS = Number(process.env.BENCH_POSTS ?? 1_000_000);
const BASELINE_SAMPLE = 1_000;

/** A small deterministic generator (mulberry32), so every run sees the same articles. */
function rng(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = rng(20261122);
const pick = (list) => list[Math.floor(random() * list.length)];
const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));

const SYLLABLES =
  'ka lo vi ren tor mia sel dan quo bri zen fal mor tek lun pax or vel nim cor'.split(' ');
function brandName(i) {
  // Unique by construction: the index spelled in syllables, capitalised.
  let n = i + 1;
  let s = '';
  while (n > 0) {
    s += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  }
  return s.charAt(0).toUpperCase() + s.slice(1);
}
const brands = (count) =>
  Array.from({ length: count }, (_, i) => {
    const name = brandName(i);
    return { id: `b${i}`, host: `${name.toLowerCase()}.com`, name };
  });

const PUBLISHERS = [
  ['Daily Ledger', 'news'],
  ['Morning Wire', 'news'],
  ['The Courier', 'news'],
  ['Gadget Weekly', 'blog'],
  ['Market Watchers', 'news'],
  ['Owners Forum', 'forum'],
  ['Regional Post', 'news'],
  ['Tech Notes', 'blog'],
  ['Consumer Voice', 'review'],
  ['City Herald', 'news'],
  ['Evening Standard', 'news'],
  ['Trade Journal', 'news'],
];
const PLACES = ['Ohio', 'Bavaria', 'Lyon', 'Osaka', 'Leeds', 'Porto', 'Gdansk', 'Quebec'];
const THINGS = ['kettle', 'scooter', 'router', 'battery', 'heater', 'stroller', 'drone', 'blender'];

/** Per kind of event: headlines and sentences, with {B} the brand and facts filled in. */
const EVENTS = {
  recall: {
    titles: ['{B} recalls {n} {p} units', '{p} pulled: {B} admits {d}', '{B} {p} recall widens'],
    sentences: [
      '{B} is recalling {n} {p} units sold in {c} after reports of {d}.',
      'Owners of the {p} should stop using it at once, {B} said on {w}.',
      'The recall of {n} units follows {d} reported by customers in {c}.',
      'Regulators in {c} are reviewing the {p} reports.',
      '{B} promised refunds to every owner of the {p}.',
    ],
    facts: { d: ['overheating', 'a fire risk', 'a choking hazard', 'a wiring defect'] },
  },
  breach: {
    titles: [
      '{B} confirms data breach affecting {n} customers',
      'Hackers leaked {B} customer data',
      '{B} breach: {n} records exposed',
    ],
    sentences: [
      '{B} said hackers accessed personal data of {n} customers in {c}.',
      'The breach was discovered on {w} and the leaked records include addresses.',
      'The data-protection regulator in {c} opened an investigation into {B}.',
      '{B} urged its {n} affected customers to change their passwords.',
    ],
    facts: {},
  },
  layoffs: {
    titles: ['{B} to cut {n} jobs', '{B} layoffs hit {c} plant', 'Union condemns {B} job cuts'],
    sentences: [
      '{B} will lay off {n} workers at its {c} plant, the union said.',
      'The layoffs at {B} were announced to staff on {w}.',
      'Union leaders in {c} called a walkout over the {n} job cuts.',
    ],
    facts: {},
  },
  launch: {
    titles: ['{B} launches the {p} in {c}', '{B} unveils a new {p}', 'First look at the {B} {p}'],
    sentences: [
      '{B} unveiled its new {p} at an event in {c} on {w}.',
      'The {p} goes on sale next month, {B} said, priced for {n} early buyers.',
      'Reviewers in {c} praised the {p} for its design.',
    ],
    facts: {},
  },
  results: {
    titles: [
      '{B} quarterly results beat forecasts',
      '{B} revenue rises in {c}',
      '{B} earnings: profit up',
    ],
    sentences: [
      '{B} reported quarterly revenue growth driven by {p} sales in {c}.',
      'Profit at {B} rose as {n} new stores opened, the company said on {w}.',
      'Analysts in {c} had expected weaker earnings from {B}.',
    ],
    facts: {},
  },
};
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const FILLER = [
  'Shares in the sector moved little during the day.',
  'The story is developing and this article will be updated.',
  'Industry observers said more details were expected later in the week.',
  'Local media first reported the news earlier in the morning.',
];

function fill(template, f) {
  return template.replace(/\{(\w)\}/g, (_, k) => f[k]);
}

/** Articles with the event and brand each was generated for. */
function generateArticles(count, brandList) {
  const out = [];
  let event = 0;
  while (out.length < count) {
    event++;
    if (random() < 0.1) {
      out.push({
        event: null,
        brand: null,
        article: {
          url: `https://news.example/none/${out.length}`,
          title: `Weather and traffic in ${pick(PLACES)}`,
          publisher: pick(PUBLISHERS)[0],
          type: 'news',
          published_at: `2026-11-${String(int(1, 28)).padStart(2, '0')}`,
          text: `${pick(FILLER)} Heavy rain is expected in ${pick(PLACES)} on ${pick(DAYS)}. ${pick(FILLER)}`,
        },
      });
      continue;
    }
    const brand = pick(brandList);
    const kind = pick(Object.keys(EVENTS));
    const spec = EVENTS[kind];
    const facts = {
      B: brand.name,
      n: String(int(2, 90) * 1000),
      p: `${pick(THINGS)} ${int(2, 99)}`,
      c: pick(PLACES),
      w: pick(DAYS),
      d: pick(spec.facts.d ?? ['a fault']),
    };
    const day = int(1, 25);
    const publishers = [...PUBLISHERS].sort(() => random() - 0.5).slice(0, int(1, 8));
    for (const [publisher, type] of publishers) {
      if (out.length >= count) break;
      const sentences = [...spec.sentences].sort(() => random() - 0.5).slice(0, 3);
      out.push({
        event,
        brand: brand.id,
        article: {
          url: `https://${publisher.toLowerCase().replace(/ /g, '')}.example/${event}`,
          title: fill(pick(spec.titles), facts),
          publisher,
          type,
          published_at: `2026-11-${String(day + int(0, EVENT_WINDOW_DAYS - 1)).padStart(2, '0')}`,
          text: `${sentences.map((s) => fill(s, facts)).join(' ')} ${pick(FILLER)}`,
        },
      });
    }
  }
  return out;
}

/**
 * The pipeline over every article, as ingestArticle runs it: detect the brands, find
 * the open story of the same event among the brand's stories within the window, score
 * and write the advisory from all the story's sources.
 */
function runPipeline(items, brandList, detect) {
  const ignore = new Map(brandList.map((b) => [b.id, brandWords(b)]));
  const byBrand = new Map();
  const assigned = [];
  let stories = 0;
  for (const { article } of items) {
    for (const brandId of detect(`${article.title}\n${article.text}`)) {
      const words = terms(article, ignore.get(brandId));
      const candidates = byBrand.get(brandId) ?? [];
      const hit = findEvent({ published_at: article.published_at, terms: words }, candidates);
      let story = hit?.story;
      if (!story) {
        story = { id: ++stories, sources: [] };
        candidates.push({ story, published_at: article.published_at, terms: words });
        byBrand.set(brandId, candidates);
      } else {
        candidates.push({ story, published_at: article.published_at, terms: words });
      }
      story.sources.push({ ...article, source_key: `s${story.sources.length + 1}` });
      generateAdvisory(story.sources);
      assigned.push({ item: article, story: story.id, brand: brandId });
    }
  }
  return { assigned, stories };
}

function timed(run) {
  const start = performance.now();
  const result = run();
  return { seconds: (performance.now() - start) / 1000, result };
}

function measurePipeline(items, brandList) {
  const detect = indexed(brandList);
  const { seconds, result } = timed(() => runPipeline(items, brandList, detect));
  return { label: 'detect → cluster → score → generate', items, brandList, seconds, result };
}

function measureDetection(label, items, brandList, make) {
  const detect = make(brandList);
  const { seconds } = timed(() => {
    for (const { article } of items) detect(`${article.title}\n${article.text}`);
  });
  return { label, items, brandList, seconds };
}

const indexed = (brandList) => {
  const matcher = new BrandMatcher(brandList.map((b) => ({ brand: b.id, terms: b })));
  return (text) => matcher.match(text);
};
/** The baseline: one regular expression per brand term, every brand tried in turn. */
const perBrandRegex = (brandList) => {
  const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const patterns = brandList.map((b) => ({
    id: b.id,
    re: new RegExp(
      `(^|[^\\p{L}\\p{N}])(${[b.name, b.host].map(escapeRe).join('|')})(['’]s)?($|[^\\p{L}\\p{N}])`,
      'u',
    ),
  }));
  return (text) => patterns.filter((p) => p.re.test(text)).map((p) => p.id);
};

/** Pairwise precision and recall of the clustering against the generated events. */
function clusterQuality(items, assigned) {
  const eventOf = new Map(items.map((i) => [i.article, i.event]));
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const byBrand = new Map();
  for (const a of assigned) {
    const list = byBrand.get(a.brand) ?? [];
    list.push(a);
    byBrand.set(a.brand, list);
  }
  for (const list of byBrand.values()) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const same = eventOf.get(list[i].item) === eventOf.get(list[j].item);
        const together = list[i].story === list[j].story;
        if (same && together) tp++;
        else if (together) fp++;
        else if (same) fn++;
      }
    }
  }
  return { precision: tp / (tp + fp || 1), recall: tp / (tp + fn || 1) };
}

const all = brands(10_000);
const thousand = all.slice(0, 1_000);
const hundred = all.slice(0, 100);
const items = generateArticles(ARTICLES, thousand);
const sample = items.slice(0, BASELINE_SAMPLE);

// Warm the JIT on a slice first so the first measured row is not penalised.
runPipeline(items.slice(0, 500), thousand, indexed(thousand));

const main = measurePipeline(items, thousand);
const rows = [
  main,
  // The same articles against ten times the brands: the extra brands are never
  // mentioned, so only the cost of matching against them can change the rate.
  measurePipeline(items, all),
  measureDetection('detection only, indexed matcher', items, hundred, indexed),
  measureDetection('detection only, indexed matcher', items, thousand, indexed),
  measureDetection('detection only, indexed matcher', items, all, indexed),
  measureDetection('baseline: detection, regex per brand', sample, hundred, perBrandRegex),
  measureDetection('baseline: detection, regex per brand', sample, thousand, perBrandRegex),
];

const rate = (r) => r.items.length / r.seconds;
const detected = items.filter((i) => i.brand !== null).length;
const found = main.result.assigned.length;
const quality = clusterQuality(items, main.result.assigned);
console.log(
  `Node ${process.version}; ${items.length} articles (${detected} mention a brand), fixed seed\n`,
);
console.log('| run | brands | articles | seconds | articles/s |');
console.log('|---|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(
    `| ${r.label} | ${r.brandList.length} | ${r.items.length} | ${r.seconds.toFixed(2)} | ${Math.round(rate(r))} |`,
  );
}
const pct = (a, b) => `${((rate(a) / rate(b)) * 100).toFixed(0)}%`;
console.log(
  `\nPipeline at 10,000 brands: ${pct(rows[1], rows[0])} of its rate at 1,000. Detection, indexed: 10,000 brands run at ${pct(rows[4], rows[2])} of the rate at 100; regex per brand: 1,000 brands at ${pct(rows[6], rows[5])} of the rate at 100.`,
);
console.log(
  `1,000 brands: ${found} mentions detected of ${detected}, ${main.result.stories} stories; clustering pairwise precision ${quality.precision.toFixed(3)}, recall ${quality.recall.toFixed(3)}`,
);
if (found !== detected) {
  console.error('detection missed or invented mentions');
  process.exit(1);
}

// The firehose: posts generated one at a time (none kept), matched as they come.
const POST_WORDS =
  'the a new today love this app update support down again great bad price store opened queue week people said my their finally why is so much better worse than ever just got'.split(
    ' ',
  );
function nextPost(brandList) {
  const n = int(12, 40);
  const words = [];
  for (let k = 0; k < n; k++) words.push(pick(POST_WORDS));
  const brand = random() < 0.05 ? pick(brandList) : null;
  if (brand) words.splice(int(0, n - 1), 0, brand.name);
  return { text: `${words.join(' ')}.`, brand: brand?.id ?? null };
}
function measureFirehose(label, count, brandList, make, sampleEvery) {
  const detect = make(brandList);
  let seconds = 0;
  let matched = 0;
  let wrong = 0;
  const heap = [];
  for (let i = 1; i <= count; i++) {
    const { text, brand } = nextPost(brandList);
    const start = performance.now();
    const found = detect(text);
    seconds += performance.now() - start;
    if (found.length > 0) matched++;
    // The planted brand, and only it.
    if (brand ? found.length !== 1 || found[0] !== brand : found.length > 0) wrong++;
    if (sampleEvery && i % sampleEvery === 0) heap.push(process.memoryUsage().heapUsed);
  }
  return { label, count, brandList, seconds: seconds / 1000, matched, wrong, heap };
}
global.gc?.();
const firehose = measureFirehose(
  'posts, indexed matcher',
  POSTS,
  all,
  indexed,
  Math.max(1, Math.floor(POSTS / 10)),
);
const firehoseBaseline = measureFirehose(
  'baseline: posts, regex per brand',
  10_000,
  thousand,
  perBrandRegex,
  0,
);
console.log('\n| firehose | brands | posts | seconds | posts/s |');
console.log('|---|---:|---:|---:|---:|');
for (const r of [firehose, firehoseBaseline]) {
  console.log(
    `| ${r.label} | ${r.brandList.length} | ${r.count} | ${r.seconds.toFixed(2)} | ${Math.round(r.count / r.seconds)} |`,
  );
}
const mb = (b) => (b / 1_048_576).toFixed(1);
console.log(
  `\nFirehose: ${firehose.matched} of ${firehose.count} posts named a brand; heap ${mb(firehose.heap[0])} MB after the first tenth, ${mb(Math.max(...firehose.heap))} MB at most, ${mb(firehose.heap.at(-1))} MB at the end.`,
);
if (firehose.wrong > 0) {
  console.error(`the matcher missed or invented ${firehose.wrong} posts' brands`);
  process.exit(1);
}
