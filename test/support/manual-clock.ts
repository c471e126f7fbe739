import type { Clock } from '../../src/clock.js';

/** A clock that starts at the real time (or `start`) and moves only when told to. */
export function manualClock(start = new Date().toISOString()): Clock & {
  advance(ms: number): void;
} {
  let t = Date.parse(start);
  return {
    now: () => new Date(t),
    advance: (ms: number) => {
      t += ms;
    },
  };
}
