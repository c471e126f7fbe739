/** Time comes from the context so tests can move it; always UTC ISO strings with a Z. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const iso = (d: Date) => d.toISOString();
