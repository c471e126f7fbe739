/**
 * Preloaded into `brs serve` by bench/tail.js (NODE_OPTIONS=--import, so each server thread
 * loads it too): records, in every thread that serves, its garbage-collection pauses and
 * the gaps of a 1 ms timer together with the thread's own CPU time across each gap (a gap
 * with little CPU in it is time the thread was not running; one full of CPU, a long
 * turn of its event loop). Written to TAIL_PROBE_DIR twice a second, read after the run.
 */
import { writeFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import { isMainThread, threadId } from 'node:worker_threads';
import { recordTimerGaps } from './timer-gaps.js';

const dir = process.env.TAIL_PROBE_DIR;
// With WORKERS > 1 the main thread serves nothing: only the server threads are probed.
const serves = !isMainThread || Number(process.env.WORKERS ?? 1) <= 1;
if (dir && serves) {
  const at = (t) => performance.timeOrigin + t;
  const gcs = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push([at(e.startTime), e.duration]);
  }).observe({ entryTypes: ['gc'] });

  const { gaps } = recordTimerGaps();

  setInterval(() => {
    writeFileSync(`${dir}/thread-${threadId}.json`, JSON.stringify({ gcs, gaps }));
  }, 500).unref();
}
