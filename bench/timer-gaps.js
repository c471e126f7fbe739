/**
 * Records the gaps of a 1 ms timer longer than 4 ms, as [start (epoch ms), length (ms),
 * this thread's CPU ms in it]: the stretches in which this thread's event loop did not
 * come round, either busy (CPU in the gap) or not running at all (none). The CPU column
 * is NaN before Node 23.9 (process.threadCpuUsage). Used by bench/tail.js for the load
 * generator and by bench/tail-probe.js in each server thread.
 */
export function recordTimerGaps() {
  const cpuUs = () => {
    const u = process.threadCpuUsage?.();
    return u ? u.user + u.system : Number.NaN;
  };
  const gaps = [];
  let last = performance.now();
  let lastCpu = cpuUs();
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = cpuUs();
    if (now - last > 4)
      gaps.push([performance.timeOrigin + last, now - last, (cpu - lastCpu) / 1000]);
    last = now;
    lastCpu = cpu;
  }, 1).unref();
  return { gaps, stop: () => clearInterval(timer) };
}
