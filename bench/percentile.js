/** The p-th percentile (0–100) of latencies sorted ascending: the nearest-rank value. */
export const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
