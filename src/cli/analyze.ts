import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { z } from 'zod';
import { loadConfig } from '../config.js';
import { requireBrandHost } from '../domain/brand-host.js';
import { cleanAliases, cleanMatchPolicy, defaultName } from '../domain/brands.js';
import { AppError } from '../errors.js';
import { BrandHost } from '../operations/schemas.js';
import {
  type AnalyzedBrand,
  analyzePage,
  brandIndex,
  type PageAnalysis,
} from '../pipeline/analyze-page.js';
import { fetchPage, type PageFailure, readPage } from '../pipeline/read-article.js';
import { Name, parse, readJsonFile } from './args.js';
import { ioOf } from './io.js';

/**
 * `brs analyze --brands FILE [--text] [--json] INPUT...`: what the pipeline makes of any
 * page, without a database (docs/pipeline.md, "brs analyze"). One NDJSON line per input,
 * in input order, each printed as soon as it and those before it are done.
 */

/** Pages fetched at once: enough to hide the network's latency, few enough to be polite. */
const CONCURRENCY = 8;

const BrandEntry = z.strictObject({
  host: z.string(),
  name: z.string().optional(),
  aliases: z.array(z.string()).optional(),
  match: z.unknown().optional(),
});

/**
 * The brands of FILE, configured as `brs brand add`, `brs brand aliases` and
 * `brs brand match` would.
 */
export function brandsFrom(json: unknown): AnalyzedBrand[] {
  if (!Array.isArray(json)) throw new AppError('invalid', 'brands: must be a JSON array');
  if (json.length === 0) throw new AppError('invalid', 'brands: name one brand at least');
  return json.map((entry, i) => {
    const field = `brands[${i}]`;
    const e = parse(BrandEntry, entry, field);
    const host = requireBrandHost(parse(BrandHost, e.host, `${field}.host`), `${field}.host`);
    const name = e.name === undefined ? defaultName(host) : parse(Name, e.name, `${field}.name`);
    return {
      host,
      name,
      aliases: cleanAliases(e.aliases ?? [], `${field}.aliases`),
      match: cleanMatchPolicy(e.match ?? {}, `${field}.match`),
    };
  });
}

type Outcome = ({ ok: true } & PageAnalysis) | { ok: false; error: string };

async function analyzeInput(
  input: string,
  brands: ReturnType<typeof brandIndex>,
  fetchConfig: () => ReturnType<typeof loadConfig>,
): Promise<Outcome> {
  const now = new Date();
  let page: Parameters<typeof readPage>[0];
  if (/^https?:\/\//i.test(input)) {
    const fetched = await fetchPage(fetchConfig(), input);
    if (!fetched.ok) return failed(fetched);
    page = fetched.page;
  } else {
    const path = resolve(input);
    const body = await readFile(path).catch(() => null);
    if (!body) return { ok: false, error: `cannot read ${input}` };
    // A file has no Content-Type: its charset comes from its BOM, its <meta> or a sniff.
    page = { url: pathToFileURL(path).href, body, contentType: null };
  }
  const read = readPage(page, now);
  if (!read.ok) return failed(read);
  return { ok: true, ...analyzePage(read.article, brands, now.toISOString()) };
}

const failed = (f: PageFailure): Outcome => ({ ok: false, error: f.reason });

/** The NDJSON line of an input, fields in the documented order. */
function jsonLine(input: string, o: Outcome, withText: boolean): string {
  if (!o.ok) return JSON.stringify({ input, ok: false, error: o.error });
  return JSON.stringify({
    input,
    ok: true,
    title: o.title,
    published_at: o.published_at,
    language: o.language,
    charset: o.charset,
    ...(withText && { text: o.text }),
    mentions: o.mentions,
  });
}

/** The report a person reads. */
function report(input: string, o: Outcome, withText: boolean): string {
  if (!o.ok) return `${input}\n  error: ${o.error}\n`;
  const lines = [
    input,
    `  ${o.title}`,
    `  published ${o.published_at ?? 'unknown'} · language ${o.language ?? 'unknown'} · charset ${o.charset}`,
  ];
  if (o.mentions.length === 0) lines.push('  no brand mentioned');
  for (const m of o.mentions) {
    lines.push(
      `  ${m.brand}: ${m.count} mention${m.count === 1 ? '' : 's'} · ${m.severity} · ${m.assessment} · ${m.topics.join(', ')}`,
      `    ${m.role} · ${m.event}${m.status === 'none' ? '' : ` (${m.status})`}`,
      ...m.evidence.map((e) => `    “${e}”`),
      ...m.reasons.map((r) => `    why ${r.topic}: “${r.signal}” in “${r.sentence}”`),
    );
  }
  if (withText) lines.push('', ...o.text.split('\n').map((l) => `  | ${l}`));
  return `${lines.join('\n')}\n`;
}

export function registerAnalyze(program: Command): void {
  program
    .command('analyze')
    .description(
      'what the pipeline makes of pages: title, date, language, charset and the brands it would make a story for (no database)',
    )
    .argument('<inputs...>', 'HTML files or http(s) URLs')
    .requiredOption('--brands <file>', 'JSON array of {"host", "name"?, "aliases"?, "match"?}')
    .option('--text', 'include the extracted text')
    .option('--json', 'print NDJSON, one object per input')
    .action(
      async (inputs: string[], o: { brands: string; text?: boolean; json?: boolean }, cmd) => {
        const io = ioOf(cmd);
        const brands = brandIndex(brandsFrom(await readJsonFile(o.brands, 'brands')));
        // The fetcher's settings, read once and only when a URL is given.
        let config: ReturnType<typeof loadConfig> | undefined;
        const fetchConfig = () => {
          config ??= loadConfig(io.env);
          return config;
        };
        // Workers take the inputs in turn; the lines still come out in input order.
        const settle: ((o: Outcome) => void)[] = [];
        const outcomes = inputs.map((_, i) => new Promise<Outcome>((r) => (settle[i] = r)));
        let next = 0;
        const worker = async () => {
          for (let i = next++; i < inputs.length; i = next++) {
            settle[i]!(
              await analyzeInput(inputs[i]!, brands, fetchConfig).catch(
                (e: Error): Outcome => ({ ok: false, error: e.message }),
              ),
            );
          }
        };
        for (let k = 0; k < Math.min(CONCURRENCY, inputs.length); k++) void worker();
        let failures = 0;
        for (let i = 0; i < inputs.length; i++) {
          const out = await outcomes[i]!;
          if (!out.ok) failures++;
          io.out(
            o.json ? `${jsonLine(inputs[i]!, out, !!o.text)}\n` : report(inputs[i]!, out, !!o.text),
          );
        }
        // Every input was reported; the status says whether all of them could be read.
        if (failures > 0) io.exitCode = 2;
      },
    );
}
