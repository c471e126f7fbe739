import pg from 'pg';
import type { DatabaseTimeouts } from '../config.js';
import { PostgresLane } from './postgres-lane.js';

/** How much longer than statement_timeout the client waits for any answer at all. */
const READ_GRACE_MS = 1000;

/** pg's text for a query whose answer did not come within query_timeout. */
const READ_TIMEOUT = 'Query read timeout';

/**
 * A client that, once a query got no answer within its read timeout, is closed rather
 * than handed back to the pool: its socket still owes that answer, so the next query on it
 * would wait behind it. Closing marks it ended, and the pool discards it on release.
 */
class BoundedClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: pg's query has a dozen overloads; this passes them through.
  override query(...args: any[]): any {
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (result instanceof Promise) {
      // Registered before the caller's own handler, so the client is ended before the
      // caller can release it to the pool.
      result.catch((err: Error) => {
        if (err?.message === READ_TIMEOUT) this.end().catch(() => {});
      });
    }
    return result;
  }
}

/**
 * The pool behind the service's PostgreSQL connection, with every wait bounded: opening a
 * connection and waiting for a free one (connectionTimeoutMillis), a statement on the
 * server (statement_timeout) and, because a connection whose packets are lost never
 * delivers the server's cancellation, the wait for an answer on the client (query_timeout).
 */
export function openPostgresPool(url: string, timeouts: DatabaseTimeouts): ServicePool {
  const config = {
    connectionString: url,
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.statementMs + READ_GRACE_MS,
    keepAlive: true,
  };
  const pool = new ServicePool({ ...config, max: 10, Client: BoundedClient as never }, config);
  // An idle client's network error must not crash the process; the next query reports it.
  pool.on('error', () => {});
  return pool;
}

/** The pool, and the pipelined lane of the hot reads beside it (postgres-lane.ts), closed together. */
export class ServicePool extends pg.Pool {
  readonly lane: PostgresLane;

  constructor(options: pg.PoolConfig, laneConfig: pg.ClientConfig) {
    super(options);
    this.lane = new PostgresLane(laneConfig);
  }

  /** Kysely's destroy ends the pool, promise form. */
  override async end(): Promise<void> {
    await Promise.all([super.end(), this.lane.end()]);
  }
}
