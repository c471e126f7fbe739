/**
 * `npm run bench:portal`: what everyone else sees while one person hammers the portal's CSV
 * export (issue 41: 12 concurrent 20,000-row exports took /healthz from p50 5 ms to 2.2 s).
 * Seeds SQLite with two accounts (BENCH_EXPORT_ROWS stories each, default 20,000), starts
 * `brs serve`, signs one person in, and measures, in the same run, /healthz and another
 * tenant's GET /v1/stories first idle, then while that person runs 12 export loops at once.
 * Prints p50/p99 of both probes in each phase and what became of the exports (served,
 * refused with 429). The numbers are the output; it exits non-zero on errors only.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../dist/config.js';
import { createContext } from '../dist/context.js';
import { addUser } from '../dist/domain/accounts.js';
import { freePort } from './free-port.js';
import { percentile } from './percentile.js';
import { seed } from './seed.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 20_000);
const EXPORTERS = 12;
const IDLE_SECONDS = 8;
const HAMMER_SECONDS = 20;
const PASSWORD = 'bench password';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Signs in through the sign-in form as a browser does; answers the cookie header. */
async function signIn(base, email) {
  const form = await fetch(`${base}/signin`);
  const cookies = new Map();
  const keep = (res) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
  };
  keep(form);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())[1];
  const header = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const done = await fetch(`${base}/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: header(), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password: PASSWORD, _csrf: csrf }),
  });
  keep(done);
  if (done.status !== 303) throw new Error(`sign-in answered ${done.status}`);
  return header();
}

/** Requests one after another until `until`, each timed; answers the latencies in ms. */
async function probe(url, headers, until) {
  const times = [];
  while (performance.now() < until) {
    const t = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${url} answered ${res.status}`);
    times.push(performance.now() - t);
    await sleep(20);
  }
  return times;
}

/** One person's export loop: download after download until `until`. */
async function exportLoop(base, cookie, until, outcome) {
  while (performance.now() < until) {
    const res = await fetch(`${base}/app/stories.csv`, { headers: { cookie } });
    if (res.status === 429) {
      outcome.refused += 1;
      await res.arrayBuffer();
      // A script that ignores Retry-After: the worst case, it tries again at once.
      await sleep(50);
      continue;
    }
    if (!res.ok) throw new Error(`export answered ${res.status}`);
    const bytes = (await res.arrayBuffer()).byteLength;
    outcome.served += 1;
    outcome.bytes += bytes;
  }
}

const summary = (times) => {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: Number(percentile(sorted, 50).toFixed(1)),
    p99: Number(percentile(sorted, 99).toFixed(1)),
  };
};

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'brs-bench-exports-'));
  let child;
  try {
    const url = `sqlite:${join(tmp, 'bench.db')}`;
    const t = performance.now();
    const data = await seed(url, { brands: 2, keys: 2, storiesPerBrand: ROWS });
    console.log(`seeded ${2 * ROWS} stories in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const app = await createContext(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'warn' }));
    const { account_id } = await app.db
      .selectFrom('brands')
      .select('account_id')
      .where('host', '=', 'brand000.example')
      .executeTakeFirstOrThrow();
    await addUser(app, {
      accountId: account_id,
      email: 'hammer@brand000.example',
      password: PASSWORD,
      role: 'member',
    });
    await app.close();
    const other = data.keys.find((k) => k.host === 'brand001.example');

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, ['bin/brs.js', 'serve'], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: url,
        PORT: String(port),
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: '100000',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    for (;;) {
      if (
        await fetch(`${base}/healthz`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      await sleep(50);
    }
    const cookie = await signIn(base, 'hammer@brand000.example');
    const tenant = `${base}/v1/stories?brand=brand001.example&limit=20`;
    const tenantHeaders = { 'x-api-key': other.key };

    let until = performance.now() + IDLE_SECONDS * 1000;
    const [idleHealth, idleTenant] = await Promise.all([
      probe(`${base}/healthz`, {}, until),
      probe(tenant, tenantHeaders, until),
    ]);
    until = performance.now() + HAMMER_SECONDS * 1000;
    const outcome = { served: 0, refused: 0, bytes: 0 };
    const [busyHealth, busyTenant] = await Promise.all([
      probe(`${base}/healthz`, {}, until),
      probe(tenant, tenantHeaders, until),
      ...Array.from({ length: EXPORTERS }, () => exportLoop(base, cookie, until, outcome)),
    ]);
    console.log(
      `\n${EXPORTERS} export loops of one person, ${ROWS} rows each, for ${HAMMER_SECONDS} s (SQLite, one server thread):`,
    );
    console.table({
      'healthz idle': summary(idleHealth),
      'healthz while exports run': summary(busyHealth),
      'other tenant idle': summary(idleTenant),
      'other tenant while exports run': summary(busyTenant),
    });
    console.log(
      `exports served ${outcome.served} (${(outcome.bytes / 1e6).toFixed(1)} MB), refused with 429: ${outcome.refused}`,
    );
  } finally {
    if (child) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
