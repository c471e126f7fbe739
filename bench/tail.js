/**
 * `npm run bench:tail`: where the slowest 1% of responses come from. Seeds SQLite as the
 * benchmark does, starts `brs serve` (WORKERS as in `npm run bench`) with bench/tail-probe.js
 * preloaded in each server thread, loads one scenario at 50 connections, and prints:
 *
 * - the rate and latency percentiles;
 * - for each busy thread of the server and of this process (the load generator), the time
 *   it ran and the time it was runnable but waited for a CPU (/proc/<pid>/task/<tid>/schedstat);
 * - for each server thread, its young-generation pauses and its long gaps (a 1 ms timer
 *   late by more than 10 ms), and how many of those it spent off its CPU;
 * - the slowest 1% grouped into episodes (responses completed within 3 ms of each other),
 *   and how many of them overlapped a GC pause, a server thread's gap or the load
 *   generator's own gap.
 *
 * docs/benchmarks.md reads its output ("Where p99 comes from on two shared CPUs").
 * TAIL_SCENARIO=get|list (default get), TAIL_SECONDS (default 8), BENCH_WORKERS as for
 * `npm run bench`. Linux only (it reads /proc).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { percentile } from './percentile.js';
import { getRequests, keyedRequest, listRequests } from './requests.js';
import { seed } from './seed.js';
import { recordTimerGaps } from './timer-gaps.js';

const CONNECTIONS = 50;
const SECONDS = Number(process.env.TAIL_SECONDS ?? 8);
const WARMUP_SECONDS = 3;
const SCENARIO = process.env.TAIL_SCENARIO ?? 'get';
const WORKERS = process.env.BENCH_WORKERS ?? String(availableParallelism());
// One pool of keys, enough that none reaches the rate limit in a run (as in bench/run.js).
const DATA = { brands: 100, keys: 3_000, storiesPerBrand: 100 };

const tmp = mkdtempSync(join(tmpdir(), 'brs-tail-'));
const probeDir = join(tmp, 'probe');
const ms = (x) => `${x.toFixed(1)} ms`;

/** Run and wait times (ms) of each thread of `pid` so far, by thread name and id. */
function schedstat(pid) {
  const out = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ');
      out[`${name} (${tid})`] = [Number(run) / 1e6, Number(wait) / 1e6];
    } catch {
      // a thread that just ended
    }
  }
  return out;
}

async function main() {
  if (!['get', 'list'].includes(SCENARIO)) throw new Error('TAIL_SCENARIO is get or list');
  mkdirSync(probeDir);
  const url = `sqlite:${join(tmp, 'tail.db')}`;
  const { keys, stories } = await seed(url, DATA);
  const { RATE_LIMIT_PER_MINUTE, REDIS_URL, HOST, NODE_OPTIONS, ...env } = process.env;
  const server = spawn(process.execPath, ['bin/brs.js', 'serve', '--json'], {
    env: {
      ...env,
      DATABASE_URL: url,
      PORT: '0',
      LOG_LEVEL: 'warn',
      WORKERS,
      TAIL_PROBE_DIR: probeDir,
      NODE_OPTIONS: `--import ${new URL('./tail-probe.js', import.meta.url).href}`,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [banner] = await once(server.stdout, 'data');
  const port = new URL(JSON.parse(String(banner).split('\n')[0]).url).port;

  // The load generator's own gaps, as the probe measures the server's.
  const { gaps: clientGaps, stop: stopGaps } = recordTimerGaps();
  const nextRequest = SCENARIO === 'list' ? listRequests(keys) : getRequests(keys, stories);
  const done = [];
  const run = autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: SECONDS,
    warmup: { connections: CONNECTIONS, duration: WARMUP_SECONDS },
    requests: [keyedRequest(nextRequest)],
  });
  run.on('response', (_c, _s, _b, latency) => {
    done.push([performance.timeOrigin + performance.now(), latency]);
  });
  let before;
  const measured = setTimeout(() => {
    before = [schedstat(server.pid), schedstat(process.pid)];
  }, WARMUP_SECONDS * 1000);
  const result = await run;
  const after = [schedstat(server.pid), schedstat(process.pid)];
  stopGaps();
  clearTimeout(measured);
  await new Promise((r) => setTimeout(r, 600)); // the probe's last write
  server.kill('SIGTERM');
  await once(server, 'exit');

  const responses = done.slice(done.length - result.requests.total);
  if (result.non2xx > 0 || result.errors > 0) throw new Error('errors or non-2xx answers');
  const from = responses[0][0] - responses[0][1];
  const to = responses.at(-1)[0];
  const sorted = responses.map((r) => r[1]).sort((a, b) => a - b);
  const pct = (p) => percentile(sorted, p);
  console.log(
    `${SCENARIO}, ${CONNECTIONS} connections, WORKERS=${WORKERS}, ${SECONDS} s: ${Math.round(result.requests.total / result.duration)} req/s, p50 ${ms(pct(50))}, p90 ${ms(pct(90))}, p99 ${ms(pct(99))}, p99.9 ${ms(pct(99.9))}\n`,
  );

  console.log('busy threads (ran / waited runnable, measured seconds):');
  for (const [i, who] of ['server', 'load generator'].entries()) {
    for (const [name, [run1, wait1]] of Object.entries(after[i])) {
      const [run0, wait0] = before?.[i][name] ?? [Number.NaN, Number.NaN];
      if (run1 - run0 > 100) {
        console.log(`  ${who} ${name}: ${ms(run1 - run0)} / ${ms(wait1 - wait0)}`);
      }
    }
  }

  const inRun = ([t]) => t >= from && t <= to;
  const threads = readdirSync(probeDir).map((f) => JSON.parse(readFileSync(join(probeDir, f))));
  console.log('\nserver threads:');
  for (const [i, t] of threads.entries()) {
    const pauses = t.gcs
      .filter(inRun)
      .map((g) => g[1])
      .sort((a, b) => a - b);
    const long = t.gaps.filter(inRun).filter((g) => g[1] > 10);
    const offCpu = long.filter((g) => g[2] < g[1] / 2).length;
    console.log(
      `  ${i + 1}: ${pauses.length} GC pauses (median ${ms(pauses[pauses.length >> 1] ?? 0)}, max ${ms(pauses.at(-1) ?? 0)}); ${long.length} gaps over 10 ms, ${offCpu} of them mostly off its CPU`,
    );
  }
  const clientLong = clientGaps.filter(inRun).filter((g) => g[1] > 10).length;
  console.log(`  load generator: ${clientLong} gaps over 10 ms`);

  // The slowest 1%, in episodes, and what each response's time in flight overlapped.
  const slow = responses.filter((r) => r[1] >= pct(99)).sort((a, b) => a[0] - b[0]);
  const episodes = [];
  for (const r of slow) {
    const e = episodes.at(-1);
    if (e && r[0] - e.at(-1)[0] < 3) e.push(r);
    else episodes.push([r]);
  }
  const sizes = episodes.map((e) => e.length).sort((a, b) => b - a);
  const inLarge = sizes.filter((n) => n >= 10).reduce((a, n) => a + n, 0);
  const overlaps = (spans, [end, latency]) =>
    spans.some(([t, d]) => t < end && t + d > end - latency);
  const count = (f) => slow.filter(f).length;
  console.log(
    `\nslowest 1%: ${slow.length} responses in ${episodes.length} episodes (largest ${sizes.slice(0, 8).join(', ')}); ${inLarge} in episodes of 10 or more`,
  );
  console.log(
    `  overlapping a GC pause ${count((r) => threads.some((t) => overlaps(t.gcs, r)))}, a server thread's gap over 4 ms ${count((r) => threads.some((t) => overlaps(t.gaps, r)))}, the load generator's ${count((r) => overlaps(clientGaps, r))}`,
  );
}

try {
  await main();
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
