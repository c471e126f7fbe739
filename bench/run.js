/**
 * `npm run bench`: seeds SQLite and PostgreSQL with the same data set, starts the Stories
 * server (`brs serve`) on each and a bare node:http hello-world, each in its own child
 * process, and drives them with autocannon from this process, every scenario in turn in
 * each of a few rounds. Prints requests per second, the service's share of the
 * hello-world's, each database's share of SQLite's, p50/p99 latency, the CPU time per
 * request of the server, of the load generator and of PostgreSQL's backends, and the targets.
 *
 * Exits non-zero on errors only (a non-2xx response, a socket error, a failed check),
 * never on a missed target: the numbers are the output.
 *
 * BENCH_DURATION=<s> changes the measured seconds per scenario (default 12), split over
 * BENCH_ROUNDS=<n> rounds (default 3).
 * BENCH_CPU_PROF=<dir> runs the server under `node --cpu-prof` and leaves the profile there.
 * BENCH_WORKERS=<n> sets WORKERS for the service and the baseline (default: one per CPU).
 * BENCH_PLANS=1 prints the query plan of every hot query on each database.
 * BENCH_BRANDS=<n> seeds n brands of 100 stories each (default 100: 10,000 stories).
 * BENCH_POSTGRES_URL=<url> is a PostgreSQL server to make the benchmark's database on
 * (default postgres://postgres@127.0.0.1:5432/postgres); BENCH_DATABASES=sqlite skips it.
 * BENCH_OVERVIEW=0 skips the overview page at 100,000 stories (bench/overview.js).
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadConfig } from '../dist/config.js';
import { randomId } from '../dist/ids.js';
import { freePort } from './free-port.js';
import {
  loadOverview,
  OVERVIEW_DATA,
  OVERVIEW_TARGET_MS,
  recomputedSeries,
  seedOverview,
} from './overview.js';
import { percentile } from './percentile.js';
import { checkPlans } from './plans.js';
import { getRequests, keyedRequest, listRequests } from './requests.js';
import { seed } from './seed.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CONNECTIONS = 50;
// Measured seconds per scenario, in ROUNDS rounds; each round runs every scenario in turn.
const SECONDS = Number(process.env.BENCH_DURATION ?? 12);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROUND_SECONDS = SECONDS / ROUNDS;
// JIT, SQLite page cache and each key's once-a-minute last_used_at write settle in the
// first round's warm-up; the later rounds' only reopen the connections.
const WARMUP_SECONDS = 3;
const LATER_WARMUP_SECONDS = 1;
// 100 stories per brand; BENCH_BRANDS=10000 seeds 1,000,000 stories (docs/benchmarks.md).
// Four pools of 3,000 keys: at 120 requests per key and minute, a scenario's requests
// within a minute (at most 17 s of them, over three rounds) stay under the limit up to about
// 21,000 req/s (4,500 keys ran out at 13,000 on a fast day).
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
 * The server's process and any children it started (its server threads are its own, in
 * the process), read from /proc (Linux). Read directly, because
 * this process is also the load generator: running `ps` (25–35 ms, synchronous) once a
 * second held every response in flight that long, and made p99 the sampler's.
 */
function serverPids(pid) {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8');
  return [pid, ...children.split(' ').filter(Boolean).map(Number)];
}

/**
 * Resident memory of the server: its process and its children, in MiB (Linux; NaN
 * elsewhere or once it is gone). Sampled once a second during a scenario; the peak is kept.
 */
function serverRssMiB(pid) {
  try {
    let kib = 0;
    for (const p of serverPids(pid)) {
      kib += Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1]);
    }
    return kib / 1024;
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

/** CPU time (ms) of process `pid` so far, all its threads, from /proc (Linux). */
function processCpuMs(pid) {
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (1000 * (Number(fields[11]) + Number(fields[12]))) / CLOCK_TICKS;
}

/**
 * CPU time (ms) of the server so far: its process (all its threads) and its children; NaN
 * elsewhere or once it is gone.
 */
function serverCpuMs(pid) {
  try {
    return serverPids(pid).reduce((ms, p) => ms + processCpuMs(p), 0);
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU time (ms) so far of each PostgreSQL backend serving the scenario's database, by pid
 * (one that has ended is left out).
 */
async function databaseCpuMs(backendPids) {
  const out = new Map();
  for (const pid of await backendPids()) {
    try {
      out.set(pid, processCpuMs(pid));
    } catch {
      // a backend that just ended
    }
  }
  return out;
}

/** CPU time (ms) the backends in both samples spent between them. */
function databaseCpuBetween(from, to) {
  let ms = 0;
  for (const [pid, was] of from) if (to.has(pid)) ms += to.get(pid) - was;
  return ms;
}

/**
 * One round of one scenario: a warm-up, then the measured run. Returns its raw figures,
 * which aggregate() sums over the rounds. Latencies are kept exact (autocannon rounds to ms).
 */
async function load(scenario, warmupSeconds, seconds) {
  const { port, nextRequest, pid } = scenario;
  const latencies = [];
  const startedAt = performance.now();
  const run = autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: seconds,
    warmup: { connections: CONNECTIONS, duration: warmupSeconds },
    requests: [keyedRequest(nextRequest)],
  });
  run.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  let rss = 0;
  const sampler = setInterval(() => {
    rss = Math.max(rss, serverRssMiB(pid));
  }, 1000);
  // CPU per response, server's and this process's (the load generator's), from just after
  // the warm-up to the end: the machine's speed drifts, their quotient much less.
  const cpuNow = () => ({
    server: serverCpuMs(pid),
    client: process.cpuUsage(),
    responses: latencies.length,
  });
  let cpuFrom;
  let databaseFrom;
  const cpuStart = setTimeout(
    () => {
      cpuFrom = cpuNow();
      if (scenario.backendPids) databaseFrom = databaseCpuMs(scenario.backendPids);
    },
    (warmupSeconds + 0.5) * 1000,
  );
  let r;
  let cpuTo;
  let databaseMs = Number.NaN;
  try {
    r = await run;
    cpuTo = cpuNow();
    if (databaseFrom) {
      databaseMs = databaseCpuBetween(
        await databaseFrom,
        await databaseCpuMs(scenario.backendPids),
      );
    }
  } finally {
    clearInterval(sampler);
    clearTimeout(cpuStart);
  }
  const clientCpu = cpuFrom && process.cpuUsage(cpuFrom.client);
  const both = [r, r.warmup];
  const sum = (f) => both.reduce((s, x) => s + f(x), 0);
  return {
    startedAt,
    // The measured run's latencies: the warm-up's responses come first.
    latencies: latencies.slice(latencies.length - r.requests.total),
    requests: r.requests.total,
    seconds: r.duration,
    sent: sum((x) => x.requests.sent),
    non2xx: sum((x) => x.non2xx),
    errors: sum((x) => x.errors + x.timeouts),
    codes: both.flatMap((x) => Object.entries(x.statusCodeStats)).map(([c, st]) => [c, st.count]),
    rss,
    served: cpuTo.responses - (cpuFrom?.responses ?? Number.NaN),
    serverCpuMs: cpuTo.server - (cpuFrom?.server ?? Number.NaN),
    databaseCpuMs: databaseMs,
    clientCpuUs: clientCpu ? clientCpu.user + clientCpu.system : Number.NaN,
  };
}

/** A scenario's row: its rounds summed (rate over the measured seconds, latencies pooled). */
function aggregate(scenario, rounds) {
  const total = (f) => rounds.reduce((s, x) => s + f(x), 0);
  const latencies = rounds.flatMap((x) => x.latencies).sort((a, b) => a - b);
  const pct = (p) => percentile(latencies, p);
  const codes = {};
  for (const [c, n] of rounds.flatMap((x) => x.codes)) codes[c] = (codes[c] ?? 0) + n;
  // The most requests any key of the pool can have had in one rate-limit window: the
  // requests of the rounds that started within a minute of one another.
  let perKey = null;
  if (scenario.poolSize) {
    const sentWithin = rounds.map((x) =>
      total((y) => (y.startedAt >= x.startedAt && y.startedAt - x.startedAt < 60_000 ? y.sent : 0)),
    );
    perKey = Math.ceil(Math.max(...sentWithin) / scenario.poolSize);
  }
  const served = total((x) => x.served);
  return {
    name: scenario.name,
    rps: total((x) => x.requests) / total((x) => x.seconds),
    roundRps: rounds.map((x) => x.requests / x.seconds),
    p50: pct(50),
    p99: pct(99),
    requests: total((x) => x.requests),
    non2xx: total((x) => x.non2xx),
    errors: total((x) => x.errors),
    codes,
    perKey,
    rss: Math.max(...rounds.map((x) => x.rss)),
    // µs per response
    serverCpu: (1000 * total((x) => x.serverCpuMs)) / served,
    clientCpu: total((x) => x.clientCpuUs) / served,
    databaseCpu: (1000 * total((x) => x.databaseCpuMs)) / served,
  };
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
    // The PostgreSQL backends serving this database now (its server runs on this machine).
    backendPids: async () => {
      const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await c.connect();
      try {
        const { rows } = await c.query(
          'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [name],
        );
        return rows.map((r) => r.pid);
      } finally {
        await c.end();
      }
    },
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
 * Seeds `backend`, checks its query plans, starts the server on it and probes it. Returns
 * its scenarios (list_stories, get_story and, with `mcp`, the v1_get_story tool call on
 * both protocol eras), each with its own key pool, and how to stop it all.
 */
async function startService(backend, tmp, options) {
  const db = await freshDatabase(backend, tmp);
  try {
    return await serviceOn(backend, db, options);
  } catch (err) {
    await db.drop(); // a server started on it is killed on exit
    throw err;
  }
}

async function serviceOn(backend, db, { mcp }) {
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
  for (const p of scans) console.error(`  FULL SCAN in ${p.label}:\n    ${p.plan.join('\n    ')}`);
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
  await probe(server.port, pool.probeKey, data.stories);
  const on = { port: server.port, pid: server.child.pid, backendPids: db.backendPids };
  const scenarios = [
    { name: `${backend} list`, nextRequest: listRequests(pool.list), poolSize: pool.list.length },
    {
      name: `${backend} get`,
      nextRequest: getRequests(pool.get, data.stories),
      poolSize: pool.get.length,
    },
  ];
  // Both protocol eras, each with its own key pool.
  if (mcp) {
    for (const [era, version, keys] of [
      ['legacy', '2025-11-25', pool.mcp],
      ['modern', '2026-07-28', pool.modern],
    ]) {
      const nextRequest = mcpRequests(era, keys, data.stories);
      scenarios.push({ name: `mcp ${version}`, nextRequest, poolSize: keys.length });
    }
  }
  return {
    scenarios: scenarios.map((x) => ({ ...x, ...on })),
    listPool: pool.list,
    async stop() {
      await stopChild(server);
      if (profDir) console.log(`  server CPU profile written to ${resolve(profDir, backend)}`);
      await db.drop();
    },
  };
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

async function main() {
  const cpu = cpus();
  console.log(
    `Stories benchmark: ${cpu.length} CPUs (${cpu[0]?.model.trim()}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  );
  console.log(
    `${CONNECTIONS} connections, ${SECONDS} s per scenario in ${ROUNDS} rounds, rate limit ${RATE_LIMIT}/key/min, ${WORKERS} server thread(s) (WORKERS), databases: ${DATABASES.join(', ')}`,
  );
  // Client and server share the cores: anything else running skews every number.
  console.log(
    `load average before the run: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );

  const tmp = mkdtempSync(join(tmpdir(), 'brs-bench-'));
  const services = [];
  let hello;
  try {
    for (const backend of DATABASES) {
      services.push(await startService(backend, tmp, { mcp: backend === 'sqlite' }));
    }
    hello = await startChild(['bench/hello.js'], { PATH: process.env.PATH, WORKERS });
    // The baseline gets the very same requests as list_stories, keys included, so the
    // client's own work is the same.
    const scenarios = [
      {
        name: 'hello-world',
        port: hello.port,
        pid: hello.child.pid,
        nextRequest: listRequests(services[0].listPool),
        poolSize: null,
      },
      ...services.flatMap((x) => x.scenarios),
    ];
    // Every scenario once per round, in turn: this VM's speed drifts within a run (up to 45%
    // from the first scenario to the last), and each share compares scenarios measured
    // side by side, under the same drift, rather than minutes apart.
    const samples = scenarios.map(() => []);
    for (let round = 1; round <= ROUNDS; round++) {
      const warmup = round === 1 ? WARMUP_SECONDS : LATER_WARMUP_SECONDS;
      console.log(`round ${round} of ${ROUNDS}: ${warmup} s warm-up + ${ROUND_SECONDS} s each`);
      for (const [i, scenario] of scenarios.entries()) {
        process.stdout.write(`  ${scenario.name} ...`);
        const sample = await load(scenario, warmup, ROUND_SECONDS);
        samples[i].push(sample);
        // The round's own p99: the row pools the rounds, so one slow round can make it.
        const p99 = percentile(
          sample.latencies.toSorted((a, b) => a - b),
          99,
        );
        process.stdout.write(
          ` ${Math.round(sample.requests / sample.seconds)} req/s, p99 ${p99.toFixed(1)} ms\n`,
        );
      }
    }
    await stopChild(hello);
    hello = undefined;
    while (services.length > 0) await services.pop().stop();
    const rows = scenarios.map((x, i) => aggregate(x, samples[i]));
    const baseline = rows[0];

    const overviews = [];
    if (process.env.BENCH_OVERVIEW !== '0') {
      mkdirSync(join(tmp, 'overview'));
      for (const backend of DATABASES) overviews.push(await measureOverview(backend, tmp));
    }

    const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
    const WIDTHS = [16, 9, 10, 11, 11, 10, 9, 8, 10, 10, 18];
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
          `${Math.round(r.serverCpu)} / ${Math.round(r.clientCpu)}${Number.isNaN(r.databaseCpu) ? '' : ` / ${Math.round(r.databaseCpu)}`}`,
        ),
      );
    }
    console.log(
      "\nCPU µs/req: CPU time per response after the warm-up, the server's (all its threads and processes) / the load generator's / on PostgreSQL, its backends' (the server's connections)",
    );

    const perRound = (r) => r.roundRps.map((x) => Math.round(x)).join(' / ');
    console.log(
      `\nvs hello: the share of the hello-world's rate, ${Math.round(baseline.rps)} req/s (by round: ${perRound(baseline)})`,
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
    // Beside it, the hello-world's own p99 in the same rounds: the floor this machine sets.
    for (const r of rows.filter((x) => !/^(hello-world|postgres )/.test(x.name))) {
      console.log(
        `  ${r.name} p99 < ${TARGETS.p99Ms} ms: ${fmtMs(r.p99)} ${mark(r.p99 < TARGETS.p99Ms)} (hello-world's ${fmtMs(baseline.p99)})`,
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
    if (hello) await stopChild(hello);
    for (const x of services) await x.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`\nbench failed: ${err.stack ?? err}`);
  process.exitCode = 1;
});
