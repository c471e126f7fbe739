/**
 * `npm run bench`: measures, one after the other and each in its own child process, a
 * bare node:http hello-world, the Stories server (`brs serve`) on SQLite and then on
 * PostgreSQL, each seeded with the same data set, and the hello-world again, driving them
 * with autocannon from this process. Prints requests per second, the service's share of
 * the two hello-world runs' mean, each database's share of SQLite's, p50/p99 latency, the
 * CPU time per request of the server and of the load generator, and the targets.
 *
 * Exits non-zero on errors only (a non-2xx response, a socket error, a failed check),
 * never on a missed target: the numbers are the output.
 *
 * BENCH_DURATION=<s> changes the measured seconds per scenario (default 10).
 * BENCH_CPU_PROF=<dir> runs the server under `node --cpu-prof` and leaves the profile there.
 * BENCH_WORKERS=<n> sets WORKERS for the service and the baseline (default: one per CPU).
 * BENCH_PLANS=1 prints the query plan of every hot query on each database.
 * BENCH_BRANDS=<n> seeds n brands of 100 stories each (default 100: 10,000 stories).
 * BENCH_POSTGRES_URL=<url> is a PostgreSQL server to make the benchmark's database on
 * (default postgres://postgres@127.0.0.1:5432/postgres); BENCH_DATABASES=sqlite skips it.
 * BENCH_OVERVIEW=0 skips the overview page at 100,000 stories (bench/overview.js).
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadConfig } from '../dist/config.js';
import { randomId } from '../dist/ids.js';
import {
  loadOverview,
  OVERVIEW_DATA,
  OVERVIEW_TARGET_MS,
  recomputedSeries,
  seedOverview,
} from './overview.js';
import { checkPlans } from './plans.js';
import { seed } from './seed.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CONNECTIONS = 50;
const SECONDS = Number(process.env.BENCH_DURATION ?? 10);
// JIT, SQLite page cache and each key's once-a-minute last_used_at write settle here.
const WARMUP_SECONDS = 3;
// 100 stories per brand; BENCH_BRANDS=10000 seeds 1,000,000 stories (docs/benchmarks.md).
// Four pools of 3,000 keys: at 120 requests per key and minute, a scenario's 3 + 10 s stay
// under the limit up to about 27,000 req/s (4,500 keys ran out at 13,000 on a fast day).
const DATA = {
  brands: Number(process.env.BENCH_BRANDS ?? 100),
  keys: 12_001,
  storiesPerBrand: 100,
};
// One server process per CPU for the service and the baseline alike, as production runs.
const WORKERS = process.env.BENCH_WORKERS ?? String(availableParallelism());
// Issue 18's goals: PostgreSQL's share of SQLite's rate; on SQLite, shares of the
// hello-world, MCP's share of REST get_story's, and p99 at 50 connections.
const TARGETS = { list_stories: 0.35, get_story: 0.4, postgres: 0.5, mcp: 0.7, p99Ms: 15 };
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,postgres').split(',');
const POSTGRES_ADMIN_URL =
  process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
// The default the server runs with; the bench must measure it, not raise it.
const RATE_LIMIT = loadConfig({}).rateLimitPerMinute;

const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

async function freePort() {
  const srv = createServer().listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address();
  srv.close();
  return port;
}

/** Starts `node <args>` with env overrides and resolves once it answers HTTP. */
async function startChild(args, env, nodeFlags = []) {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeFlags, ...args], {
    cwd: ROOT,
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.add(child);
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`${args.join(' ')} exited early (${code})`);
  });
  const ready = (async () => {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  await Promise.race([ready, exited]);
  exited.catch(() => {}); // an exit after this point is stopChild's doing
  return { child, port };
}

async function stopChild({ child }) {
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
  children.delete(child);
}

/**
 * Round-robin over a key pool, shared by all connections, so every key carries the same
 * share of the load and none reaches its RATE_LIMIT in the run's window (checked after).
 */
function listRequests(pool) {
  let i = 0;
  return () => {
    const { key, host } = pool[i++ % pool.length];
    return { key, path: `/v1/stories?brand=${host}&limit=20` };
  };
}

/** Each brand walks its own stories in order: odd ones unlocked, so half get the full plan. */
function getRequests(pool, stories) {
  let i = 0;
  const next = {};
  return () => {
    const { key, host } = pool[i++ % pool.length];
    const n = next[host] ?? 0;
    next[host] = (n + 1) % stories[host].length;
    return { key, path: `/v1/story?brand=${host}&event_uri=${stories[host][n]}` };
  };
}

/**
 * The JSON-RPC body of an MCP tools/call of v1_get_story: on the 2025-11-25 protocol
 * (after an initialize, which a stateless server does not need), or on 2026-07-28, where
 * each request names its protocol version and client in `_meta`.
 */
const mcpCall = (era, host, eventUri) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'v1_get_story',
      arguments: { brand: host, event_uri: eventUri },
      ...(era === 'modern' && {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      }),
    },
  });
const MCP_HEADERS = {
  legacy: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
  },
  modern: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'v1_get_story',
  },
};

/** get_story again, as the MCP tool v1_get_story over POST /mcp (stateless, no session). */
function mcpRequests(era, pool, stories) {
  const next = getRequests(pool, stories);
  return () => {
    const { key, path } = next();
    const q = new URLSearchParams(path.split('?')[1]);
    return {
      key,
      method: 'POST',
      path: '/mcp',
      headers: MCP_HEADERS[era],
      body: mcpCall(era, q.get('brand'), q.get('event_uri')),
    };
  };
}

/**
 * Resident memory of the server: its process and the cluster's workers, in MiB, read
 * with ps (Linux and macOS). Sampled once a second during a scenario; the peak is kept.
 */
function serverRssMiB(pid) {
  const kib = (args) =>
    execFileSync('ps', args, { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.trim() !== '')
      .reduce((sum, l) => sum + Number(l), 0);
  try {
    return (
      (kib(['-o', 'rss=', '-p', String(pid)]) + kib(['-o', 'rss=', '--ppid', String(pid)])) / 1024
    );
  } catch {
    return Number.NaN; // the server is gone; the scenario's own errors say why
  }
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
  } catch {
    return 100;
  }
})();

/**
 * CPU time (ms) of the server so far: its process and the cluster's workers, read from
 * /proc (Linux); NaN elsewhere or once it is gone.
 */
function serverCpuMs(pid) {
  try {
    const kids = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.trim() !== '');
    let ticks = 0;
    for (const p of [pid, ...kids.map(Number)]) {
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    return (1000 * ticks) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

/** One scenario: warm-up, then the measured run. Latencies are kept exact (autocannon rounds to ms). */
async function load(name, port, nextRequest, poolSize, pid) {
  process.stdout.write(`  ${name}: ${WARMUP_SECONDS} s warm-up + ${SECONDS} s ...`);
  const latencies = [];
  const run = autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: SECONDS,
    warmup: { connections: CONNECTIONS, duration: WARMUP_SECONDS },
    requests: [
      {
        method: 'GET',
        setupRequest(req) {
          const { key, path, method, headers, body } = nextRequest();
          req.path = path;
          if (method) req.method = method;
          if (body) req.body = body;
          Object.assign(req.headers, headers, { 'x-api-key': key });
          return req;
        },
      },
    ],
  });
  run.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  let rss = 0;
  const sampler = setInterval(() => {
    if (pid !== undefined) rss = Math.max(rss, serverRssMiB(pid));
  }, 1000);
  // CPU per response, server's and this process's (the load generator's), from just after
  // the warm-up to the end: the machine's speed drifts, their quotient much less.
  const cpuNow = () => ({
    server: serverCpuMs(pid),
    client: process.cpuUsage(),
    responses: latencies.length,
  });
  let cpuFrom;
  const cpuStart = setTimeout(
    () => {
      cpuFrom = cpuNow();
    },
    (WARMUP_SECONDS + 0.5) * 1000,
  );
  let r;
  let cpuTo;
  try {
    r = await run;
    cpuTo = cpuNow();
  } finally {
    clearInterval(sampler);
    clearTimeout(cpuStart);
  }
  const served = cpuTo.responses - (cpuFrom?.responses ?? Number.NaN);
  const clientCpu = cpuFrom && process.cpuUsage(cpuFrom.client);
  latencies.sort((a, b) => a - b);
  const pct = (p) =>
    latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  const both = [r, r.warmup];
  const sum = (f) => both.reduce((s, x) => s + f(x), 0);
  const out = {
    name,
    rps: r.requests.average,
    p50: pct(50),
    p99: pct(99),
    requests: r.requests.total,
    non2xx: sum((x) => x.non2xx),
    errors: sum((x) => x.errors + x.timeouts),
    codes: Object.fromEntries(
      both.flatMap((x) => Object.entries(x.statusCodeStats)).map(([c, s]) => [c, s.count]),
    ),
    // Warm-up and run together last ~13 s, inside one rate-limit window per key.
    perKey: poolSize ? Math.ceil(sum((x) => x.requests.sent) / poolSize) : null,
    rss,
    // µs per response
    serverCpu: (1000 * (cpuTo.server - (cpuFrom?.server ?? Number.NaN))) / served,
    clientCpu: clientCpu ? (clientCpu.user + clientCpu.system) / served : Number.NaN,
  };
  process.stdout.write(` ${Math.round(out.rps)} req/s\n`);
  return out;
}

/** Checks, before the load, that the scenarios return what they claim to measure. */
async function probe(port, { key, host }, stories) {
  const get = async (path) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'x-api-key': key } });
    if (res.status !== 200) throw new Error(`probe ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const list = await get(`/v1/stories?brand=${host}&limit=20`);
  if (list.stories.length !== 20)
    throw new Error(`probe: list_stories gave ${list.stories.length} rows`);
  const [locked, unlocked] = stories[host];
  const a = (await get(`/v1/story?brand=${host}&event_uri=${locked}`)).story.advisory;
  const b = (await get(`/v1/story?brand=${host}&event_uri=${unlocked}`)).story.advisory;
  if (!a.locked || b.locked || !(b.phases?.length > 0))
    throw new Error('probe: expected a teaser and a full advisory');
  // A failed tool call is still HTTP 200: check the MCP answer itself, on both eras.
  for (const era of ['legacy', 'modern']) {
    const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS[era], 'x-api-key': key },
      body: mcpCall(era, host, unlocked),
    });
    const rpc = await res.json();
    if (
      rpc.result?.isError !== undefined ||
      rpc.result?.structuredContent?.story?.advisory?.locked !== false
    )
      throw new Error(
        `probe: MCP (${era}) v1_get_story answered ${JSON.stringify(rpc).slice(0, 200)}`,
      );
  }
}

const fmtMs = (ms) => `${ms.toFixed(2)} ms`;
const sec = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** A fresh database for one backend, and how to throw it away. */
async function freshDatabase(backend, tmp) {
  if (backend === 'sqlite') return { url: `sqlite:${join(tmp, 'bench.db')}`, drop: async () => {} };
  const name = `brs_bench_${randomId(8)}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Disjoint key pools, so one scenario's windows never carry into the next. */
function pools(keys) {
  const [probeKey, ...rest] = keys;
  const quarter = Math.floor(rest.length / 4);
  return {
    probeKey,
    list: rest.slice(0, quarter),
    get: rest.slice(quarter, 2 * quarter),
    mcp: rest.slice(2 * quarter, 3 * quarter),
    modern: rest.slice(3 * quarter),
  };
}

/**
 * Seeds `backend` and runs the service's scenarios on it: list_stories, get_story and,
 * with `mcp`, the v1_get_story tool call on both protocol eras.
 */
async function measureService(backend, tmp, { mcp }) {
  const db = await freshDatabase(backend, tmp);
  try {
    const t = performance.now();
    let shown = 0;
    const data = await seed(db.url, DATA, (stories) => {
      // A large seed takes minutes: say how far it got, every 100,000 stories.
      if (stories - shown >= 100_000) {
        shown = stories;
        console.log(`  ${backend}: ${stories} stories seeded (${sec(performance.now() - t)})`);
      }
    });
    const storyCount = Object.values(data.stories).flat().length;
    console.log(
      `${backend}: seeded ${DATA.brands} brands, ${data.keys.length} keys, ${storyCount} stories (half unlocked) in ${sec(performance.now() - t)} (accounts and keys ${sec(data.timings.accountsAndKeys)}, stories ${sec(data.timings.stories)})`,
    );
    // Every hot query on an index, on this data: a full scan is a failed check.
    const plans = await checkPlans(db.url);
    const scans = plans.filter((p) => p.fullScans.length > 0);
    console.log(
      `  ${backend}: ${plans.length} hot queries, ${plans.length - scans.length} of them on indexes`,
    );
    for (const p of scans)
      console.error(`  FULL SCAN in ${p.label}:\n    ${p.plan.join('\n    ')}`);
    if (process.env.BENCH_PLANS) {
      for (const p of plans) console.log(`  ${p.label}\n    ${p.plan.join('\n    ')}`);
    }
    if (scans.length > 0) throw new Error(`${backend}: a hot query reads a whole table`);
    const pool = pools(data.keys);
    // Defaults for everything but the database, where to listen, what to log and WORKERS:
    // the in-memory rate limiter (kept by the cluster's primary) at its default limit.
    const { RATE_LIMIT_PER_MINUTE, REDIS_URL, HOST, ...env } = process.env;
    const profDir = process.env.BENCH_CPU_PROF;
    const server = await startChild(
      ['bin/brs.js', 'serve'],
      { ...env, DATABASE_URL: db.url, LOG_LEVEL: 'warn', WORKERS },
      profDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profDir, backend)}`] : [],
    );
    const pid = server.child.pid;
    await probe(server.port, pool.probeKey, data.stories);
    const rows = [
      await load(`${backend} list`, server.port, listRequests(pool.list), pool.list.length, pid),
      await load(
        `${backend} get`,
        server.port,
        getRequests(pool.get, data.stories),
        pool.get.length,
        pid,
      ),
    ];
    // Both protocol eras, each with its own key pool.
    if (mcp) {
      for (const [era, version, keys] of [
        ['legacy', '2025-11-25', pool.mcp],
        ['modern', '2026-07-28', pool.modern],
      ]) {
        const next = mcpRequests(era, keys, data.stories);
        rows.push(await load(`mcp ${version}`, server.port, next, keys.length, pid));
      }
    }
    await stopChild(server);
    if (profDir) console.log(`  server CPU profile written to ${resolve(profDir, backend)}`);
    return { rows, listPool: pool.list };
  } finally {
    await db.drop();
  }
}

/**
 * The overview page on `backend` at 100,000 stories: seeded, served, loaded for each
 * period and scope; beside it, the same series recomputed from the stories.
 */
async function measureOverview(backend, tmp) {
  const db = await freshDatabase(backend, join(tmp, 'overview'));
  try {
    const t = performance.now();
    const hosts = await seedOverview(db.url);
    const stories = OVERVIEW_DATA.brands * OVERVIEW_DATA.storiesPerBrand;
    console.log(
      `${backend} overview: seeded ${stories} stories over ${hosts.length} client brands in ${sec(performance.now() - t)}`,
    );
    const { RATE_LIMIT_PER_MINUTE, REDIS_URL, HOST, ...env } = process.env;
    const server = await startChild(['bin/brs.js', 'serve'], {
      ...env,
      DATABASE_URL: db.url,
      LOG_LEVEL: 'warn',
      WORKERS,
    });
    const rows = [];
    for (const [label, path] of [
      ['30 days, 10 brands', '/app?days=30'],
      ['90 days, 10 brands', '/app?days=90'],
      ['90 days, 1 brand', `/app?days=90&brand=${hosts[0]}`],
    ]) {
      rows.push({ label, ...(await loadOverview(server.port, path)) });
    }
    await stopChild(server);
    const baseline = await recomputedSeries(db.url, hosts);
    return { backend, rows, baseline };
  } finally {
    await db.drop();
  }
}

/**
 * Keys and hosts of the seeded pool's shape (an API key's format, `brandNNN.example`),
 * for the baseline run before anything is seeded: the hello-world reads neither, so the
 * requests are the seeded ones byte for byte in length.
 */
function shapedPool(size) {
  const pick = (alphabet, n) =>
    Array.from({ length: n }, () => alphabet[randomInt(alphabet.length)]).join('');
  const lower = 'abcdefghijklmnopqrstuvwxyz23456789';
  const any = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
  return Array.from({ length: size }, (_, i) => ({
    key: `brs_${pick(lower, 12)}_${pick(any, 43)}`,
    host: `brand${String(i % DATA.brands).padStart(3, '0')}.example`,
  }));
}

/** The baseline: bench/hello.js under list_stories' requests from `pool`. */
async function helloWorld(name, pool) {
  const hello = await startChild(['bench/hello.js'], { PATH: process.env.PATH, WORKERS });
  const row = await load(name, hello.port, listRequests(pool), null, hello.child.pid);
  await stopChild(hello);
  return row;
}

async function main() {
  const cpu = cpus();
  console.log(
    `Stories benchmark: ${cpu.length} CPUs (${cpu[0]?.model.trim()}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  );
  console.log(
    `${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s per scenario, rate limit ${RATE_LIMIT}/key/min, ${WORKERS} server process(es), databases: ${DATABASES.join(', ')}`,
  );
  // Client and server share the cores: anything else running skews every number.
  console.log(
    `load average before the run: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );

  const tmp = mkdtempSync(join(tmpdir(), 'brs-bench-'));
  try {
    // The baseline runs first and last: this VM's speed drifts within a run, and the
    // service's scenarios, in between, are compared with the mean of the two.
    const helloFirst = await helloWorld('hello (first)', shapedPool(3000));
    const measured = {};
    for (const backend of DATABASES) {
      measured[backend] = await measureService(backend, tmp, { mcp: backend === 'sqlite' });
    }
    const overviews = [];
    if (process.env.BENCH_OVERVIEW !== '0') {
      mkdirSync(join(tmp, 'overview'));
      for (const backend of DATABASES) overviews.push(await measureOverview(backend, tmp));
    }
    // The last baseline gets the very same requests as list_stories, keys included, so
    // the client's own work is the same.
    const helloLast = await helloWorld('hello (last)', measured[DATABASES[0]].listPool);
    const baseline = { name: 'hello-world', rps: (helloFirst.rps + helloLast.rps) / 2 };

    const rows = [helloFirst, helloLast, ...DATABASES.flatMap((d) => measured[d].rows)];
    const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
    const WIDTHS = [16, 9, 10, 11, 11, 10, 9, 8, 10, 10, 14];
    const line = (...cells) =>
      cells.map((c, i) => (i === 0 ? c.padEnd(WIDTHS[i]) : c.padStart(WIDTHS[i]))).join('');
    console.log(
      `\n${line('scenario', 'req/s', 'vs hello', 'p50', 'p99', 'requests', 'non-2xx', 'errors', 'per key', 'peak RSS', 'CPU µs/req')}`,
    );
    for (const r of rows) {
      console.log(
        line(
          r.name,
          String(Math.round(r.rps)),
          `${((100 * r.rps) / baseline.rps).toFixed(1)}%`,
          fmtMs(r.p50),
          fmtMs(r.p99),
          String(r.requests),
          String(r.non2xx),
          String(r.errors),
          r.perKey === null ? '-' : `${r.perKey}/${RATE_LIMIT}`,
          `${Math.round(r.rss)} MiB`,
          `${Math.round(r.serverCpu)} / ${Math.round(r.clientCpu)}`,
        ),
      );
    }
    console.log(
      "\nCPU µs/req: CPU time per response after the warm-up, the server's (all its processes) / the load generator's",
    );

    const drift = (100 * (helloLast.rps - helloFirst.rps)) / helloFirst.rps;
    console.log(
      `\nvs hello: the share of the two hello-world runs' mean, ${Math.round(baseline.rps)} req/s (the last ${drift >= 0 ? '+' : ''}${drift.toFixed(1)}% from the first)`,
    );

    // A non-2xx means the run measured something else (a 429 is cheaper than a story).
    const bad = rows.filter((r) => r.non2xx > 0 || r.errors > 0);
    if (bad.length > 0) {
      for (const r of bad) {
        console.error(
          `\nERROR ${r.name}: ${r.non2xx} non-2xx, ${r.errors} errors/timeouts; status codes ${JSON.stringify(r.codes)}`,
        );
      }
      console.error('Targets not evaluated: the run is invalid.');
      process.exitCode = 1;
      return;
    }
    console.log('\nTargets:');
    const mark = (ok) => (ok ? 'met' : 'MISSED');
    const pctOf = (a, b) => `${((100 * a.rps) / b.rps).toFixed(1)}%`;
    const first = DATABASES[0];
    for (const op of ['list', 'get']) {
      const r = byName[`${first} ${op}`];
      const target = TARGETS[op === 'list' ? 'list_stories' : 'get_story'];
      console.log(
        `  ${r.name} >= ${target * 100}% of hello-world: ${pctOf(r, baseline)} ${mark(r.rps / baseline.rps >= target)}`,
      );
    }
    // The issue sets the p99 goal among SQLite's (REST and MCP); PostgreSQL's is in the table.
    for (const r of rows.filter((x) => !/^(hello|postgres) /.test(x.name))) {
      console.log(
        `  ${r.name} p99 < ${TARGETS.p99Ms} ms: ${fmtMs(r.p99)} ${mark(r.p99 < TARGETS.p99Ms)}`,
      );
    }
    if (byName['postgres list'] && first === 'sqlite') {
      for (const op of ['list', 'get']) {
        const r = byName[`postgres ${op}`];
        const base = byName[`sqlite ${op}`];
        console.log(
          `  ${r.name} >= ${TARGETS.postgres * 100}% of sqlite ${op}: ${pctOf(r, base)} ${mark(r.rps / base.rps >= TARGETS.postgres)}`,
        );
      }
    }
    const rest = byName[`${first} get`];
    for (const r of rows.filter((x) => x.name.startsWith('mcp '))) {
      console.log(
        `  ${r.name} >= ${TARGETS.mcp * 100}% of ${rest.name}: ${pctOf(r, rest)} ${mark(r.rps / rest.rps >= TARGETS.mcp)} (p50 ${fmtMs(r.p50)} against ${fmtMs(rest.p50)})`,
      );
    }
    for (const o of overviews) {
      console.log(
        `\nOverview page, ${o.backend}, ${OVERVIEW_DATA.brands * OVERVIEW_DATA.storiesPerBrand} stories (the 90-day series recomputed from the stories instead: p50 ${fmtMs(o.baseline.p50)}, worst ${fmtMs(o.baseline.max)}):`,
      );
      for (const r of o.rows) {
        const ok = r.non2xx === 0 && r.errors === 0 && r.p99 < OVERVIEW_TARGET_MS;
        console.log(
          `  ${r.label.padEnd(20)} ${String(Math.round(r.rps)).padStart(5)} req/s  p50 ${fmtMs(r.p50)}  p99 ${fmtMs(r.p99)} < ${OVERVIEW_TARGET_MS} ms ${mark(ok)}${r.non2xx || r.errors ? ` (${r.non2xx} non-2xx, ${r.errors} errors)` : ''}`,
        );
        if (r.non2xx || r.errors) process.exitCode = 1;
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`\nbench failed: ${err.stack ?? err}`);
  process.exitCode = 1;
});
