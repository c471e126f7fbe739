import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter, type RateLimiter } from '../../src/http/rate-limiter.js';
import { SharedRateLimiter } from '../../src/http/shared-rate-limiter.js';

const kinds: [string, (now: () => number) => RateLimiter][] = [
  ['in-memory', (now) => new MemoryRateLimiter(now)],
  ['shared (server threads)', (now) => new SharedRateLimiter(undefined, now)],
];

describe.each(kinds)('%s fixed-window rate limiter', (_, make) => {
  it('counts hits in a window and starts a new one when it ends', async () => {
    let now = 1_000_000;
    const rl = make(() => now);
    expect(await rl.peek('k')).toBeNull();
    expect((await rl.hit('k', 60_000)).count).toBe(1);
    const w = await rl.hit('k', 60_000);
    expect(w).toEqual({ count: 2, resetAt: 1_060_000 });
    expect((await rl.peek('k'))?.count).toBe(2);
    expect((await rl.hit('other', 60_000)).count).toBe(1);
    now = 1_060_000;
    expect(await rl.peek('k')).toBeNull();
    expect(await rl.hit('k', 60_000)).toEqual({ count: 1, resetAt: 1_120_000 });
    await rl.close();
  });

  it('gives a hit back within the window, never below zero and never into a new window', async () => {
    let now = 1_000_000;
    const rl = make(() => now);
    await rl.release('none');
    expect(await rl.peek('none')).toBeNull();
    await rl.hit('k', 60_000);
    await rl.hit('k', 60_000);
    await rl.release('k');
    expect(await rl.peek('k')).toEqual({ count: 1, resetAt: 1_060_000 });
    await rl.release('k');
    await rl.release('k');
    expect((await rl.peek('k'))?.count).toBe(0);
    now = 1_060_000;
    await rl.release('k');
    expect(await rl.peek('k')).toBeNull();
    await rl.close();
  });
});

describe('the shared rate-limit table', () => {
  it('is one set of windows for every limiter made on its buffer', async () => {
    const a = new SharedRateLimiter();
    const b = new SharedRateLimiter(a.buffer);
    await a.hit('key:1', 60_000);
    expect((await b.hit('key:1', 60_000)).count).toBe(2);
    await b.release('key:1');
    expect((await a.peek('key:1'))?.count).toBe(1);
    // Another table (another process) draws its own seeds and shares nothing.
    expect(await new SharedRateLimiter().peek('key:1')).toBeNull();
  });

  it('loses no hit when four threads count in one window at once', async () => {
    const table = new SharedRateLimiter();
    // The built limiter (npm test builds first): a thread runs JavaScript, not TypeScript.
    const module = new URL('../../dist/http/shared-rate-limiter.js', import.meta.url).href;
    const code = `
      const { workerData, parentPort } = require('node:worker_threads');
      import(workerData.module).then(async ({ SharedRateLimiter }) => {
        const rl = new SharedRateLimiter(workerData.buffer);
        for (let i = 0; i < 20000; i++) {
          await rl.hit('key:shared', 60000);
          await rl.hit('key:' + (i % 500), 60000);
          if (i % 4 === 0) await rl.release('key:shared');
        }
        parentPort.postMessage('done');
      });`;
    const threads = Array.from(
      { length: 4 },
      () => new Worker(code, { eval: true, workerData: { module, buffer: table.buffer } }),
    );
    await Promise.all(threads.map((t) => once(t, 'message')));
    await Promise.all(threads.map((t) => t.terminate()));
    expect((await table.peek('key:shared'))?.count).toBe(4 * 20_000 - 4 * 5_000);
    for (let k = 0; k < 500; k++) expect((await table.peek(`key:${k}`))?.count).toBe(4 * 40);
  });

  it('keeps a quarter of a million live windows, and reuses the slots of ended ones', async () => {
    let now = 1_000_000;
    const rl = new SharedRateLimiter(undefined, () => now);
    // Five sets of 2^18 windows, a minute apart: more than the table's 2^20 slots in all.
    for (let set = 0; set < 5; set++) {
      for (let i = 0; i < 2 ** 18; i++) await rl.hit(`key:${set}:${i}`, 60_000);
      let intact = 0;
      for (let i = 0; i < 2 ** 18; i++)
        if ((await rl.peek(`key:${set}:${i}`))?.count === 1) intact++;
      expect(intact).toBe(2 ** 18);
      now += 60_000;
    }
    expect(await rl.peek('key:0:0')).toBeNull();
  });
});
