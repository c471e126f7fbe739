import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/domain/accounts.js';
import { addBrand, requireBrandByHost, setBrandAliases } from '../../src/domain/brands.js';
import { ingestArticle } from '../../src/domain/ingest-article.js';
import { BrandMatcher } from '../../src/pipeline/brand-matcher.js';
import type { ArticleInput } from '../../src/pipeline/builtin-advisor.js';
import { findMentions, focusOf } from '../../src/pipeline/mentions.js';
import { readArticle } from '../../src/pipeline/read-article.js';
import { scoreText } from '../../src/pipeline/taxonomy.js';
import { startService, type TestService } from '../support/harness.js';

/**
 * The pipeline's quality on a corpus of hand-written articles (test/fixtures/corpus/,
 * labelled by hand in labels.json): served from a local HTTP server, fetched, extracted,
 * detected against five brands, clustered into stories through the real database, and
 * scored. Prints the figures; fails below the bars set here.
 */
const CORPUS = new URL('../fixtures/corpus/', import.meta.url);

interface Label {
  file: string;
  publisher: string;
  type: string;
  published_at: string;
  brand: string | null;
  event: string | null;
  severity: string;
  topics: string[];
  duplicate_of?: string;
}
const labels = JSON.parse(readFileSync(new URL('labels.json', CORPUS), 'utf8')) as Label[];

const BRANDS = [
  { host: 'acme.com', name: 'Acme', aliases: ['Acme Corp', 'ACME Rockets'] },
  { host: 'globex.com', name: 'Globex', aliases: [] },
  { host: 'initech.com', name: 'Initech', aliases: [] },
  { host: 'umbrella.com', name: 'Umbrella', aliases: [] },
  { host: 'northwind.com', name: 'Northwind Traders', aliases: ['Northwind'] },
];

let svc: TestService;
let site: http.Server;
let base: string;

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const name = (req.url ?? '').replace(/^\/corpus\//, '');
    const label = labels.find((l) => l.file === name);
    if (!label) {
      res.writeHead(404).end();
      return;
    }
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(readFileSync(new URL(label.file, CORPUS)));
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  const port = (site.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  svc = await startService({ FETCH_ALLOW_HOSTS: `127.0.0.1:${port}` }, { runJobs: false });
  const account = await createAccount(svc.app, 'Corpus', 'partner');
  for (const b of BRANDS) {
    await addBrand(svc.app, { accountId: account, host: b.host, name: b.name, verified: true });
    await setBrandAliases(svc.app, await requireBrandByHost(svc.app, b.host), b.aliases, 't');
  }
});
afterAll(async () => {
  site.close();
  await svc.close();
});

const ratio = (a: number, b: number) => (b === 0 ? 1 : a / b);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

describe('the pipeline on the hand-labelled corpus', () => {
  it('has at least 30 articles, each labelled', () => {
    expect(labels.length).toBeGreaterThanOrEqual(30);
    for (const l of labels) expect(readFileSync(new URL(l.file, CORPUS)).length).toBeGreaterThan(0);
  });

  it('detects, clusters and scores as labelled', async () => {
    const matcher = new BrandMatcher(BRANDS.map((b) => ({ brand: b, terms: b })));
    // Oldest first, as coverage arrives, the file name breaking ties for a stable order;
    // second copies of an article last, so their original is stored when they come.
    const ordered = [...labels].sort(
      (a, b) =>
        Number(!!a.duplicate_of) - Number(!!b.duplicate_of) ||
        a.published_at.localeCompare(b.published_at) ||
        a.file.localeCompare(b.file),
    );
    const detection = { tp: 0, fp: 0, fn: 0 };
    const storyOf = new Map<string, string>();
    const misses: string[] = [];
    let severityRight = 0;
    let topicsRight = 0;
    let extracted = 0;
    let languageRight = 0;

    for (const label of ordered) {
      const read = await readArticle(
        svc.app.config,
        `${base}/corpus/${label.file}`,
        label.published_at,
        svc.app.clock.now(),
      );
      if (!read.ok) {
        misses.push(`${label.file}: not extracted (${read.reason})`);
        if (label.brand) detection.fn++;
        continue;
      }
      extracted++;
      const article: ArticleInput = { ...read.article, type: label.type };
      const text = `${article.title}\n${article.text}`;

      // Scored as the pipeline scores a story: on what the article says about its brand.
      const labelled = BRANDS.find((b) => b.host === label.brand);
      const scored = scoreText(labelled ? focusOf(article, labelled) : text, read.article.language);
      if (scored.severity === label.severity) severityRight++;
      else misses.push(`${label.file}: severity ${scored.severity}, labelled ${label.severity}`);
      if (JSON.stringify(scored.topics) === JSON.stringify(label.topics)) topicsRight++;
      else misses.push(`${label.file}: topics ${scored.topics}, labelled ${label.topics}`);

      // What the pipeline decides: boilerplate and self-naming are not mentions.
      const found = findMentions(article, matcher).map((m) => m.brand.host);
      // The French and German pages are named so; every other page is in English.
      const language = /-fr\.html$/.test(label.file)
        ? 'fr'
        : /-de\.html$/.test(label.file)
          ? 'de'
          : 'en';
      if (read.article.language === language) languageRight++;
      else misses.push(`${label.file}: language ${read.article.language}, expected ${language}`);
      for (const host of found) {
        if (host === label.brand) detection.tp++;
        else {
          detection.fp++;
          misses.push(`${label.file}: detected ${host}, labelled ${label.brand}`);
        }
      }
      if (label.brand && !found.includes(label.brand)) {
        detection.fn++;
        misses.push(`${label.file}: ${label.brand} not detected`);
      }
      for (const host of found) {
        const brand = await requireBrandByHost(svc.app, host);
        const outcome = await ingestArticle(svc.app, brand, article, 'monitor');
        if (host === label.brand) storyOf.set(label.file, outcome.event_uri);
        if (label.duplicate_of) {
          expect(outcome.status, `${label.file} is a duplicate`).toBe('exists');
        }
      }
    }

    // Clustering, pairwise over the articles of each brand that were detected and stored:
    // two articles labelled with one event should share a story, and only those.
    const stored = labels.filter((l) => storyOf.has(l.file));
    const pairs = { tp: 0, fp: 0, fn: 0 };
    for (let i = 0; i < stored.length; i++) {
      for (let j = i + 1; j < stored.length; j++) {
        const a = stored[i]!;
        const b = stored[j]!;
        if (a.brand !== b.brand) continue;
        const sameEvent = a.event === b.event;
        const together = storyOf.get(a.file) === storyOf.get(b.file);
        if (sameEvent && together) pairs.tp++;
        else if (together) {
          pairs.fp++;
          misses.push(`${a.file} and ${b.file}: one story, labelled ${a.event} and ${b.event}`);
        } else if (sameEvent) {
          pairs.fn++;
          misses.push(`${a.file} and ${b.file}: two stories, labelled one event ${a.event}`);
        }
      }
    }
    const events = new Set(stored.map((l) => `${l.brand}/${l.event}`));
    const stories = new Set(storyOf.values());

    const figures = {
      articles: labels.length,
      extracted,
      detectionPrecision: ratio(detection.tp, detection.tp + detection.fp),
      detectionRecall: ratio(detection.tp, detection.tp + detection.fn),
      clusteringPrecision: ratio(pairs.tp, pairs.tp + pairs.fp),
      clusteringRecall: ratio(pairs.tp, pairs.tp + pairs.fn),
      severityAccuracy: ratio(severityRight, extracted),
      topicsAccuracy: ratio(topicsRight, extracted),
      languageAccuracy: ratio(languageRight, extracted),
    };
    console.log(
      [
        `corpus: ${figures.articles} articles, ${figures.extracted} extracted`,
        `detection: precision ${pct(figures.detectionPrecision)}, recall ${pct(figures.detectionRecall)} (${detection.tp} right, ${detection.fp} wrong, ${detection.fn} missed)`,
        `clustering: ${events.size} labelled events became ${stories.size} stories; pairwise precision ${pct(figures.clusteringPrecision)}, recall ${pct(figures.clusteringRecall)}`,
        `severity: ${pct(figures.severityAccuracy)} as labelled; topics: ${pct(figures.topicsAccuracy)} exactly as labelled`,
        `language: ${pct(figures.languageAccuracy)} right`,
        ...misses.map((m) => `  - ${m}`),
      ].join('\n'),
    );
    // Every citation of every advisory names a source of its own story.
    const advisories = await svc.app.db
      .selectFrom('advisories as a')
      .select(['a.story_id', 'a.executive_summary', 'a.summary_basis'])
      .where('a.kind', '=', 'live')
      .execute();
    expect(advisories).toHaveLength(stories.size);
    for (const a of advisories) {
      const keys = new Set(
        (
          await svc.app.db
            .selectFrom('articles')
            .select('source_key')
            .where('story_id', '=', a.story_id)
            .execute()
        ).map((r) => r.source_key),
      );
      const cited = [
        ...(JSON.parse(a.executive_summary) as { cites: string[] }[]).flatMap((i) => i.cites),
        ...(JSON.parse(a.summary_basis) as string[]),
      ];
      expect(cited.length).toBeGreaterThan(0);
      for (const c of cited) expect(keys, `${a.story_id} cites ${c}`).toContain(c);
    }

    expect(figures.extracted).toBe(figures.articles);
    expect(figures.detectionPrecision).toBeGreaterThanOrEqual(0.95);
    expect(figures.detectionRecall).toBeGreaterThanOrEqual(0.95);
    expect(figures.clusteringPrecision).toBeGreaterThanOrEqual(0.9);
    expect(figures.clusteringRecall).toBeGreaterThanOrEqual(0.9);
    expect(figures.severityAccuracy).toBeGreaterThanOrEqual(0.85);
    expect(figures.languageAccuracy).toBe(1);
  });
});
