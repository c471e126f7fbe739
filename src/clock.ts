/**
 * Time comes from the context so tests can move it: the current instant (always used as
 * UTC ISO strings with a Z), and repeating timers that run on the same time.
 */
export interface Clock {
  now(): Date;
  /**
   * Calls `fn` every `ms` until the returned function is called (a job's lease renewals).
   * A test's clock calls it when moved past each period, and awaits what it answers.
   */
  every(ms: number, fn: () => unknown): () => void;
}

export const systemClock: Clock = {
  now: () => new Date(),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    // A timer alone never keeps the process alive.
    timer.unref();
    return () => clearInterval(timer);
  },
};

export const iso = (d: Date) => d.toISOString();
