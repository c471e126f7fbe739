import type { Clock } from '../../src/clock.js';

/**
 * A clock that starts at the real time (or `start`) and moves only when told to. Moving
 * it runs its repeating timers for every period passed, in time order, and the promise
 * `advance` answers settles once what they started has.
 */
export function manualClock(start = new Date().toISOString()): Clock & {
  advance(ms: number): Promise<void>;
} {
  let t = Date.parse(start);
  const timers = new Set<{ ms: number; next: number; fn: () => unknown }>();
  return {
    now: () => new Date(t),
    every(ms, fn) {
      const timer = { ms, next: t + ms, fn };
      timers.add(timer);
      return () => timers.delete(timer);
    },
    advance(ms: number) {
      const end = t + ms;
      const started: unknown[] = [];
      for (;;) {
        const due = [...timers].filter((x) => x.next <= end).sort((a, b) => a.next - b.next)[0];
        if (!due) break;
        t = due.next;
        due.next += due.ms;
        started.push(due.fn());
      }
      t = end;
      return Promise.all(started).then(() => undefined);
    },
  };
}
