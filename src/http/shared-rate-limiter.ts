import { randomInt } from 'node:crypto';
import type { RateLimiter, RateWindow } from './rate-limiter.js';

/**
 * Rate-limit windows shared by the server threads of one process without Redis (WORKERS >
 * 1): a table in a SharedArrayBuffer that every thread reads and counts in directly,
 * under a lock, so a key's 120 a minute hold across threads at the cost of a hash and a
 * few memory accesses (a round trip to another process cost a fifth of the server's CPU:
 * docs/benchmarks.md).
 *
 * The table is 2^20 slots in groups of 32: a bucket lives in the group its hash names and
 * nowhere else, so a lookup reads one group and nothing needs sweeping: a slot whose
 * window ended is free for the next bucket of its group. A bucket is known by a 64-bit
 * fingerprint of its name, hashed with seeds drawn at start-up, so a client cannot choose
 * names that share a window or a group. With 250,000 windows live at once (a window per
 * key and minute; a busy server has thousands) a group overflows about once in a million
 * such minutes; a full group gives up its window that ends first.
 */
const SLOTS = 1 << 20;
const GROUP = 32;
const GROUPS = SLOTS / GROUP;

/** Header: the lock (0 free, 1 held, 2 held with threads waiting) and the two seeds. */
const LOCK = 0;
const SEED_A = 1;
const SEED_B = 2;
const HEADER_BYTES = 16;

/** The 16-byte header, then 20 bytes a slot: its end (8), fingerprint (8) and count (4). */
const BYTES = HEADER_BYTES + SLOTS * 20;

export class SharedRateLimiter implements RateLimiter {
  private readonly header: Int32Array;
  /** Two 32-bit halves of each slot's fingerprint. */
  private readonly prints: Int32Array;
  private readonly counts: Int32Array;
  /** When each slot's window ends, epoch ms; 0 for a slot never used. */
  private readonly ends: Float64Array;

  /** A new table, or (in another thread) the one whose `buffer` was handed over. */
  constructor(
    readonly buffer: SharedArrayBuffer = newTable(),
    private readonly now: () => number = Date.now,
  ) {
    if (buffer.byteLength !== BYTES) throw new Error('not a rate-limit table');
    this.header = new Int32Array(buffer, 0, HEADER_BYTES / 4);
    this.ends = new Float64Array(buffer, HEADER_BYTES, SLOTS);
    this.prints = new Int32Array(buffer, HEADER_BYTES + SLOTS * 8, SLOTS * 2);
    this.counts = new Int32Array(buffer, HEADER_BYTES + SLOTS * 16, SLOTS);
  }

  async hit(bucket: string, windowMs: number): Promise<RateWindow> {
    return this.locked(bucket, true, (slot, t) => {
      if (this.ends[slot]! <= t) {
        this.counts[slot] = 0;
        this.ends[slot] = t + windowMs;
      }
      this.counts[slot]! += 1;
      return { count: this.counts[slot]!, resetAt: this.ends[slot]! };
    });
  }

  async peek(bucket: string): Promise<RateWindow | null> {
    return this.locked(bucket, false, (slot, t) =>
      slot < 0 || this.ends[slot]! <= t
        ? null
        : { count: this.counts[slot]!, resetAt: this.ends[slot]! },
    );
  }

  async release(bucket: string): Promise<void> {
    this.locked(bucket, false, (slot, t) => {
      if (slot >= 0 && this.ends[slot]! > t && this.counts[slot]! > 0) this.counts[slot]! -= 1;
    });
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}

  /**
   * Runs `fn` on the bucket's slot with the table locked: with `take`, a slot always (one
   * taken for the bucket is marked ended, for `fn` to start its window); without, -1 when
   * the bucket has none.
   */
  private locked<T>(bucket: string, take: boolean, fn: (slot: number, now: number) => T): T {
    const [a, b, group] = this.fingerprint(bucket);
    const t = this.now();
    this.lock();
    try {
      const first = group * GROUP;
      let free = -1;
      let oldest = first;
      for (let s = first; s < first + GROUP; s++) {
        const end = this.ends[s]!;
        if (end !== 0 && this.prints[2 * s] === a && this.prints[2 * s + 1] === b) return fn(s, t);
        if (free < 0 && end <= t) free = s;
        if (end < this.ends[oldest]!) oldest = s;
      }
      if (!take) return fn(-1, t);
      const slot = free >= 0 ? free : oldest;
      this.prints[2 * slot] = a;
      this.prints[2 * slot + 1] = b;
      this.ends[slot] = -1; // ended: fn starts the window
      return fn(slot, t);
    } finally {
      this.unlock();
    }
  }

  /** Two seeded 32-bit hashes of the name (FNV-1a style, multiplied out) and its group. */
  private fingerprint(bucket: string): [number, number, number] {
    let a = this.header[SEED_A]! ^ 0x811c9dc5;
    let b = this.header[SEED_B]! ^ 0x01000193;
    for (let i = 0; i < bucket.length; i++) {
      const c = bucket.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
    }
    a = Math.imul(a ^ (a >>> 15), 0x2c1b3c6d);
    a ^= a >>> 13;
    b = Math.imul(b ^ (b >>> 16), 0x297a2d39);
    b ^= b >>> 15;
    return [a | 0, b | 0, (a >>> 0) % GROUPS];
  }

  /**
   * A futex-style lock (Drepper, "Futexes are tricky", mutex 2): uncontended, one
   * compare-and-swap each way; a thread that finds it held sleeps until woken rather than
   * spinning while the holder may be descheduled.
   */
  private lock(): void {
    const h = this.header;
    let c = Atomics.compareExchange(h, LOCK, 0, 1);
    if (c === 0) return;
    do {
      if (c === 2 || Atomics.compareExchange(h, LOCK, 1, 2) !== 0) Atomics.wait(h, LOCK, 2);
      c = Atomics.compareExchange(h, LOCK, 0, 2);
    } while (c !== 0);
  }

  private unlock(): void {
    if (Atomics.sub(this.header, LOCK, 1) !== 1) {
      Atomics.store(this.header, LOCK, 0);
      Atomics.notify(this.header, LOCK, 1);
    }
  }
}

function newTable(): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(BYTES);
  const header = new Int32Array(buffer, 0, HEADER_BYTES / 4);
  header[SEED_A] = randomInt(2 ** 31);
  header[SEED_B] = randomInt(2 ** 31);
  return buffer;
}
