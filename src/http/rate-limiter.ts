import { Redis } from 'ioredis';
import { AppError } from '../errors.js';

/** One fixed window: how many hits it holds and when (epoch ms) it ends. */
export interface RateWindow {
  count: number;
  resetAt: number;
}

export interface RateLimiter {
  /** Counts one hit in the bucket's current window and returns the window after it. */
  hit(bucket: string, windowMs: number): Promise<RateWindow>;
  /** The bucket's current window without counting, or null when it has none. */
  peek(bucket: string): Promise<RateWindow | null>;
  /**
   * Takes one hit back from the bucket's current window (none when it has no window): an
   * attempt counted up front, so parallel attempts cannot slip past the limit together,
   * turned out to be one that should not count (a sign-in that succeeded).
   */
  release(bucket: string): Promise<void>;
  /** Resolves when the windows can be read and counted now; rejects otherwise (/readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Per-process windows: the embedded default for a single server. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, RateWindow>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  async hit(bucket: string, windowMs: number): Promise<RateWindow> {
    const t = this.now();
    let w = this.windows.get(bucket);
    if (!w || w.resetAt <= t) {
      w = { count: 0, resetAt: t + windowMs };
      this.windows.set(bucket, w);
    }
    w.count += 1;
    return { ...w };
  }

  async peek(bucket: string): Promise<RateWindow | null> {
    const w = this.current(bucket);
    return w && { ...w };
  }

  async release(bucket: string): Promise<void> {
    const w = this.current(bucket);
    if (w && w.count > 0) w.count -= 1;
  }

  private current(bucket: string): RateWindow | null {
    const w = this.windows.get(bucket);
    return w && w.resetAt > this.now() ? w : null;
  }

  async ping(): Promise<void> {}

  private sweep(): void {
    const t = this.now();
    for (const [k, w] of this.windows) if (w.resetAt <= t) this.windows.delete(k);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}

/** Without Redis no process can tell how many calls a key made: answer 503, not a guess. */
function outage(): never {
  throw new AppError('unavailable');
}

/** INCR and the window's expiry in one atomic step, so every server process shares a window. */
const HIT = `
local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local t = redis.call('PTTL', KEYS[1])
if t < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) t = tonumber(ARGV[1]) end
return {c, t}`;

/** DECR only a window that exists and holds hits: a release never starts a window. */
const RELEASE = `
local c = tonumber(redis.call('GET', KEYS[1]) or '0')
if c > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;

  private readonly prefix: string;

  constructor(
    private readonly url: string,
    opts: { prefix?: string; timeoutMs?: number } = {},
  ) {
    this.prefix = opts.prefix ?? 'brs:rl:';
    // Fail fast instead of queueing while Redis is away, and give up on a command whose
    // answer does not come (a Redis that stopped answering): the caller answers 503.
    this.redis = new Redis(url, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      commandTimeout: opts.timeoutMs ?? 2000,
    });
    this.redis.on('error', () => {});
  }

  /** Waits for the connection; a Redis that cannot be reached is a start-up error, not a hang. */
  async ready(timeoutMs = 5000): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.redis.disconnect();
        reject(new Error(`REDIS_URL: cannot connect to ${this.url} within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * A command with no answer in time leaves a connection that may never answer again
   * (its peer is gone without closing it): it is dropped and a new one made, then 503.
   */
  private readonly failed = (err: Error): never => {
    if (err?.message === 'Command timed out') this.redis.disconnect(true);
    return outage();
  };

  async hit(bucket: string, windowMs: number): Promise<RateWindow> {
    const [count, ttl] = (await this.redis
      .eval(HIT, 1, this.prefix + bucket, windowMs)
      .catch(this.failed)) as [number, number];
    return { count, resetAt: Date.now() + ttl };
  }

  async peek(bucket: string): Promise<RateWindow | null> {
    const [count, ttl] = await this.redis
      .multi()
      .get(this.prefix + bucket)
      .pttl(this.prefix + bucket)
      .exec()
      .catch(this.failed)
      .then((r) => [r?.[0]?.[1], r?.[1]?.[1]] as [string | null, number]);
    if (count === null || ttl < 0) return null;
    return { count: Number(count), resetAt: Date.now() + ttl };
  }

  async release(bucket: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.prefix + bucket).catch(this.failed);
  }

  async ping(): Promise<void> {
    await this.redis.ping().catch(this.failed);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
