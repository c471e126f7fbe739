import type { FastifyBaseLogger } from 'fastify';
import { type Billing, createBilling } from './billing/billing.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import { type Db, openDatabase, withTransaction } from './db/database.js';
import { MemoryRateLimiter, type RateLimiter, RedisRateLimiter } from './http/rate-limiter.js';
import { JobRunner } from './jobs/queue.js';
import { type Advisor, createAdvisor } from './pipeline/advisor.js';

/**
 * Everything a handler may use, handed in rather than imported, so every test can build
 * its own (a fresh database, a fixed clock) and nothing is a module-level singleton.
 */
export interface AppContext {
  config: Config;
  db: Db;
  clock: Clock;
  limiter: RateLimiter;
  billing: Billing;
  advisor: Advisor;
  jobs: JobRunner;
  log?: FastifyBaseLogger;
  close(): Promise<void>;
}

export async function createContext(
  config: Config,
  overrides: Partial<Pick<AppContext, 'clock' | 'limiter'>> = {},
): Promise<AppContext> {
  const db = openDatabase(config.database, config.databaseTimeouts);
  let limiter = overrides.limiter;
  if (!limiter) {
    if (config.redisUrl) {
      const redis = new RedisRateLimiter(config.redisUrl, { timeoutMs: config.redisTimeoutMs });
      await redis.ready();
      limiter = redis;
    } else {
      const clock = overrides.clock ?? systemClock;
      limiter = new MemoryRateLimiter(() => clock.now().getTime());
    }
  }
  let runner: JobRunner | undefined;
  const ctx: AppContext = {
    config,
    db,
    clock: overrides.clock ?? systemClock,
    limiter,
    billing: createBilling(config),
    advisor: createAdvisor(config),
    get jobs() {
      runner ??= new JobRunner(ctx);
      return runner;
    },
    async close() {
      await runner?.stop();
      await limiter.close();
      await db.destroy();
    },
  };
  return ctx;
}

/**
 * Runs `fn` in a transaction (or in the caller's, when `app.db` already is one) with a
 * context whose `db` is that transaction: one handle for everything the work calls.
 * Name the callback's parameter `app`, shadowing the outer context, so nothing in reach
 * can query outside the transaction by mistake.
 */
export function inTransaction<T>(app: AppContext, fn: (app: AppContext) => Promise<T>): Promise<T> {
  return withTransaction(app.db, (trx) => fn(trx === app.db ? app : { ...app, db: trx }));
}
