import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

/**
 * `brs analyze` (docs/pipeline.md): files and URLs in, one NDJSON line per input in input
 * order, no database. Run in-process; test/integration/cli.test.ts spawns the command.
 */
const dir = mkdtempSync(join(tmpdir(), 'brs-analyze-'));
let site: http.Server;
let base: string;

const para = (s: string) => `<p>${s}</p>`;
const page = (title: string, paragraphs: string[], head = '') => `<!doctype html>
<html lang="en"><head>${head}<title>${title} | The Ledger</title>
<meta property="og:site_name" content="The Ledger">
<meta property="article:published_time" content="2026-11-18T09:00:00Z">
</head><body><nav>Home · Business</nav><article><h1>${title}</h1>
${paragraphs.map(para).join('\n')}
</article><footer>© The Ledger</footer></body></html>`;

const FILLER =
  'Regulators said on Tuesday that the inquiry would look at deliveries made between March and September, and at the invoices that went with them, before any decision is taken.';
const english = page('Acme faces an inquiry over late deliveries', [
  `Acme said it would cooperate with regulators. ${FILLER}`,
  FILLER,
  `A spokesperson for Acme Corp declined to comment further. ${FILLER}`,
  'Follow us on Twitter | Facebook | Globex',
]);
const french = page(
  'Acme rappelle des perceuses défectueuses',
  [
    'Le groupe américain Acme a annoncé mardi le rappel de 40 000 perceuses dont la batterie peut surchauffer, a indiqué l’entreprise dans un communiqué publié à Lyon.',
    'Les clients concernés peuvent rapporter leur appareil dans les magasins de la marque, qui le remplaceront gratuitement, selon le communiqué. « La sécurité de nos clients passe avant tout », a déclaré la directrice générale.',
    'Les perceuses ont été vendues en France et en Belgique entre mars et septembre 2026, pour un prix d’environ 89 €, dans les grandes surfaces de bricolage.',
  ],
  '<meta charset="windows-1252">',
);

/** `brs analyze …` in this process, with its own environment and output. */
async function run(...args: string[]) {
  const { BASE_URL: _vite, ...env } = process.env;
  let stdout = '';
  const code = await main(['node', 'brs', 'analyze', ...args], {
    env: { ...env, FETCH_ALLOW_HOSTS: new URL(base).host },
    out: (text) => {
      stdout += text;
    },
    err: () => {},
    exitCode: 0,
  });
  return { code, stdout };
}
const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

beforeAll(async () => {
  writeFileSync(
    join(dir, 'brands.json'),
    JSON.stringify([
      { host: 'acme.com', aliases: ['Acme Corp'] },
      { host: 'globex.com', name: 'Globex' },
    ]),
  );
  writeFileSync(join(dir, 'english.html'), english);
  writeFileSync(join(dir, 'french.html'), iconv.encode(french, 'windows-1252'));
  writeFileSync(
    join(dir, 'empty.html'),
    '<!doctype html><html><body><p>Nothing here.</p></body></html>',
  );
  site = http.createServer((req, res) => {
    if (req.url === '/slow') {
      // The first input is the last to finish: its line must still come first.
      setTimeout(
        () => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(english),
        400,
      );
    } else if (req.url === '/feed') {
      res.writeHead(200, { 'content-type': 'application/rss+xml' }).end('<rss/>');
    } else {
      res.writeHead(404).end();
    }
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => site.close());

describe('brs analyze', () => {
  it('prints one line per input, in input order, with the contract’s fields', async () => {
    const inputs = [
      `${base}/slow`,
      join(dir, 'english.html'),
      join(dir, 'french.html'),
      join(dir, 'missing.html'),
      `${base}/gone`,
      `${base}/feed`,
      join(dir, 'empty.html'),
      'http://10.1.2.3/page',
    ];
    const r = await run('--brands', join(dir, 'brands.json'), '--json', ...inputs);
    const out = lines(r.stdout);
    expect(out.map((o) => o.input)).toEqual(inputs);
    const acme = {
      brand: 'acme.com',
      count: 3,
      severity: expect.any(String),
      assessment: expect.any(String),
      topics: expect.any(Array),
      // The situation: Acme is the subject of a regulator's inquiry, which is under way.
      role: 'subject',
      event: 'regulator-action',
      status: 'confirmed',
      // How the article speaks of Acme (wink-nlp, English, read with the situation).
      sentiment: expect.any(Number),
      reasons: expect.any(Array),
      evidence: [
        'Acme faces an inquiry over late deliveries',
        'Acme said it would cooperate with regulators.',
        'A spokesperson for Acme Corp declined to comment further.',
      ],
    };
    // Globex is named only in the follow links: not a mention.
    expect(out[0]).toEqual({
      input: inputs[0],
      ok: true,
      title: 'Acme faces an inquiry over late deliveries',
      published_at: '2026-11-18',
      language: 'en',
      charset: 'utf-8',
      mentions: [acme],
    });
    expect(Object.keys(out[0])).toEqual([
      'input',
      'ok',
      'title',
      'published_at',
      'language',
      'charset',
      'mentions',
    ]);
    expect(out[1]).toEqual({ ...out[0], input: inputs[1] });
    expect(out[2]).toMatchObject({
      ok: true,
      title: 'Acme rappelle des perceuses défectueuses',
      language: 'fr',
      charset: 'windows-1252',
      mentions: [{ brand: 'acme.com', count: 2, severity: 'high', topics: ['product-safety'] }],
    });
    expect(out.slice(3)).toEqual([
      { input: inputs[3], ok: false, error: `cannot read ${inputs[3]}` },
      { input: inputs[4], ok: false, error: 'the page answered HTTP 404' },
      { input: inputs[5], ok: false, error: 'not an HTML page (application/rss+xml)' },
      { input: inputs[6], ok: false, error: 'no readable article on the page' },
      { input: inputs[7], ok: false, error: expect.stringMatching(/not a public address/) },
    ]);
    // Every input was reported, and the status says some could not be read.
    expect(r.code).toBe(2);
  });

  it('adds the text with --text, and exits 0 when every input was read', async () => {
    const r = await run(
      '--brands',
      join(dir, 'brands.json'),
      '--text',
      '--json',
      join(dir, 'english.html'),
    );
    expect(r.code).toBe(0);
    const [o] = lines(r.stdout);
    expect(Object.keys(o)).toEqual([
      'input',
      'ok',
      'title',
      'published_at',
      'language',
      'charset',
      'text',
      'mentions',
    ]);
    expect(o.text).toContain('A spokesperson for Acme Corp declined to comment further.');
  });

  it('prints a readable report without --json', async () => {
    const r = await run(
      '--brands',
      join(dir, 'brands.json'),
      join(dir, 'english.html'),
      join(dir, 'missing.html'),
    );
    expect(r.stdout).toContain('acme.com: 3 mentions');
    expect(r.stdout).toContain('    subject · regulator-action (confirmed)\n');
    expect(r.stdout).toMatch(/why event: “regulator-action” in “/);
    expect(r.stdout).toContain('“Acme said it would cooperate with regulators.”');
    expect(r.stdout).toContain(`${join(dir, 'missing.html')}\n  error: cannot read`);
  });

  it('refuses a brands file brs brand add would refuse, naming the entry', async () => {
    const bad = (name: string, json: unknown) => {
      writeFileSync(join(dir, name), JSON.stringify(json));
      return run('--brands', join(dir, name), '--json', join(dir, 'english.html'));
    };
    expect(await bad('object.json', { host: 'acme.com' })).toEqual({
      code: 1,
      stdout: `${JSON.stringify({ error: 'brands: must be a JSON array' })}\n`,
    });
    const host = await bad('host.json', [{ host: 'acme.com' }, { host: 'localhost' }]);
    expect(host.code).toBe(1);
    expect(JSON.parse(host.stdout).error).toMatch(/^brands\[1\]\.host: /);
    const alias = await bad('alias.json', [{ host: 'acme.com', aliases: ['A'] }]);
    expect(JSON.parse(alias.stdout)).toEqual({
      error: 'brands[0].aliases: "A" must be 2 to 100 characters',
    });
    const extra = await bad('extra.json', [{ host: 'acme.com', colour: 'red' }]);
    expect(extra.code).toBe(1);
  });
});
