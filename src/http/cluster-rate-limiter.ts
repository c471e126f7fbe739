import cluster, { type Worker } from 'node:cluster';
import { AppError } from '../errors.js';
import type { MemoryRateLimiter, RateLimiter, RateWindow } from './rate-limiter.js';

const ANSWER_TIMEOUT_MS = 5000;

/**
 * Rate-limit windows shared by the server processes of one machine without Redis: the
 * cluster's primary process keeps the windows (the in-memory limiter) and each worker
 * asks it over the cluster's IPC channel. The calls a worker makes in one turn of its
 * event loop travel as one message each way, so a busy worker pays one IPC round trip
 * per turn, not per request. A message is flat arrays, answered at once, with one timer
 * per batch rather than a promise and a timer per call in the primary and a timer per
 * call in the worker (3% of the server's CPU under get_story: docs/benchmarks.md).
 */
type Op = 'hit' | 'peek' | 'release';
/** A worker's batch: `calls` holds op, bucket and windowMs of each call, in order. */
interface Batch {
  brsRateLimit: number;
  calls: (string | number)[];
}
/** The primary's answer: count and resetAt of each call's window, -1 and -1 for none. */
interface Answer {
  brsRateLimit: number;
  windows: number[];
}

const isMessage = (m: unknown): m is Batch | Answer =>
  typeof m === 'object' && m !== null && 'brsRateLimit' in m;

/** In the primary: answers every worker's calls from `limiter`. */
export function serveRateLimitToWorkers(limiter: MemoryRateLimiter): void {
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (!isMessage(message) || !('calls' in message)) return;
    const { calls } = message;
    const windows: number[] = [];
    for (let i = 0; i < calls.length; i += 3) {
      const op = calls[i] as Op;
      const bucket = calls[i + 1] as string;
      let w: RateWindow | null = null;
      if (op === 'hit') w = limiter.count(bucket, calls[i + 2] as number);
      else if (op === 'peek') w = limiter.current(bucket);
      else limiter.takeBack(bucket);
      windows.push(w ? w.count : -1, w ? w.resetAt : -1);
    }
    if (worker.isConnected()) worker.send({ brsRateLimit: message.brsRateLimit, windows });
  });
}

interface Waiter {
  resolve: (w: RateWindow | null) => void;
  reject: (e: Error) => void;
}

/** In a worker: a RateLimiter whose windows live in the primary. */
export class ClusterRateLimiter implements RateLimiter {
  private nextBatch = 1;
  /** This turn's calls, sent at its end. */
  private open: { calls: Batch['calls']; waiters: Waiter[] } | undefined;
  private readonly sent = new Map<number, { waiters: Waiter[]; timer: NodeJS.Timeout }>();
  private readonly onMessage = (message: unknown) => {
    if (!isMessage(message) || !('windows' in message)) return;
    const batch = this.sent.get(message.brsRateLimit);
    if (!batch) return;
    clearTimeout(batch.timer);
    this.sent.delete(message.brsRateLimit);
    const { windows } = message;
    batch.waiters.forEach((waiter, i) => {
      const count = windows[2 * i]!;
      waiter.resolve(count < 0 ? null : { count, resetAt: windows[2 * i + 1]! });
    });
  };

  constructor() {
    if (!process.send) throw new Error('ClusterRateLimiter runs only in a cluster worker');
    process.on('message', this.onMessage);
  }

  private call(op: Op, bucket: string, windowMs: number): Promise<RateWindow | null> {
    if (!this.open) {
      this.open = { calls: [], waiters: [] };
      setImmediate(() => this.flush());
    }
    const { calls, waiters } = this.open;
    calls.push(op, bucket, windowMs);
    return new Promise((resolve, reject) => {
      waiters.push({ resolve, reject });
    });
  }

  private flush(): void {
    const { calls, waiters } = this.open!;
    this.open = undefined;
    const id = this.nextBatch++;
    // Without an answer no one can tell how many calls a key made: 503, never a hang.
    const timer = setTimeout(() => this.fail(id), ANSWER_TIMEOUT_MS);
    this.sent.set(id, { waiters, timer });
    try {
      process.send!({ brsRateLimit: id, calls } satisfies Batch);
    } catch {
      this.fail(id); // the primary is gone
    }
  }

  private fail(id: number): void {
    const batch = this.sent.get(id);
    if (!batch) return;
    clearTimeout(batch.timer);
    this.sent.delete(id);
    for (const waiter of batch.waiters) waiter.reject(new AppError('unavailable'));
  }

  async hit(bucket: string, windowMs: number): Promise<RateWindow> {
    return (await this.call('hit', bucket, windowMs))!;
  }

  peek(bucket: string): Promise<RateWindow | null> {
    return this.call('peek', bucket, 0);
  }

  async release(bucket: string): Promise<void> {
    await this.call('release', bucket, 0);
  }

  /** A round trip to the primary, which keeps the windows. */
  async ping(): Promise<void> {
    await this.call('peek', 'ping', 0);
  }

  async close(): Promise<void> {
    process.off('message', this.onMessage);
  }
}
