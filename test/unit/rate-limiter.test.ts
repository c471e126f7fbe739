import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/http/rate-limiter.js';

describe('in-memory fixed-window rate limiter', () => {
  it('counts hits in a window and starts a new one when it ends', async () => {
    let now = 1_000_000;
    const rl = new MemoryRateLimiter(() => now);
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
    const rl = new MemoryRateLimiter(() => now);
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
