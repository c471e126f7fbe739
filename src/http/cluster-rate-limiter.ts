import cluster, { type Worker } from 'node:cluster';
import { AppError } from '../errors.js';
import type { RateLimiter, RateWindow } from './rate-limiter.js';

const ANSWER_TIMEOUT_MS = 5000;

/**
 * Rate-limit windows shared by the server processes of one machine without Redis: the
 * cluster's primary process keeps the windows (any RateLimiter, in practice the in-memory
 * one) and each worker asks it over the cluster's IPC channel. Calls made in the same
 * event-loop turn travel as one message each way, so a busy worker pays one IPC round trip
 * per turn, not per request.
 */
type Call = [id: number, op: 'hit' | 'peek' | 'release', bucket: string, windowMs: number];
type Answer = [id: number, window: RateWindow | null];
interface Batch {
  brsRateLimit: Call[] | Answer[];
}

const isBatch = (m: unknown): m is Batch =>
  typeof m === 'object' && m !== null && 'brsRateLimit' in m;

/** In the primary: answers every worker's calls from `limiter`. */
export function serveRateLimitToWorkers(limiter: RateLimiter): void {
  cluster.on('message', async (worker: Worker, message: unknown) => {
    if (!isBatch(message)) return;
    const answers = await Promise.all(
      (message.brsRateLimit as Call[]).map(async ([id, op, bucket, windowMs]): Promise<Answer> => {
        if (op === 'hit') return [id, await limiter.hit(bucket, windowMs)];
        if (op === 'peek') return [id, await limiter.peek(bucket)];
        await limiter.release(bucket);
        return [id, null];
      }),
    );
    if (worker.isConnected()) worker.send({ brsRateLimit: answers });
  });
}

/** In a worker: a RateLimiter whose windows live in the primary. */
export class ClusterRateLimiter implements RateLimiter {
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (w: RateWindow | null) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }
  >();
  private queue: Call[] = [];
  private readonly onMessage = (message: unknown) => {
    if (!isBatch(message)) return;
    for (const [id, w] of message.brsRateLimit as Answer[]) {
      const waiter = this.waiting.get(id);
      if (!waiter) continue;
      clearTimeout(waiter.timer);
      this.waiting.delete(id);
      waiter.resolve(w);
    }
  };

  constructor() {
    if (!process.send) throw new Error('ClusterRateLimiter runs only in a cluster worker');
    process.on('message', this.onMessage);
  }

  private call(op: Call[1], bucket: string, windowMs: number): Promise<RateWindow | null> {
    const id = this.nextId++;
    if (this.queue.length === 0) setImmediate(() => this.flush());
    this.queue.push([id, op, bucket, windowMs]);
    return new Promise((resolve, reject) => {
      // Without an answer no one can tell how many calls a key made: 503, never a hang.
      const timer = setTimeout(() => this.fail(id), ANSWER_TIMEOUT_MS);
      this.waiting.set(id, { resolve, reject, timer });
    });
  }

  private fail(id: number): void {
    const waiter = this.waiting.get(id);
    if (!waiter) return;
    clearTimeout(waiter.timer);
    this.waiting.delete(id);
    waiter.reject(new AppError('unavailable'));
  }

  private flush(): void {
    const calls = this.queue;
    this.queue = [];
    try {
      process.send!({ brsRateLimit: calls });
    } catch {
      for (const [id] of calls) this.fail(id); // the primary is gone
    }
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
