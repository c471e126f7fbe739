import type { Socket } from 'node:net';
import pg from 'pg';
import { isDatabaseOutage } from './errors.js';

/** query_canceled: the statement ran past statement_timeout; the connection is fine. */
const STATEMENT_TIMEOUT = '57014';

/**
 * One pipelined connection per process for the hot path's short reads (prepared.ts),
 * beside the pool. On the pool a read has a connection to itself for its round trip, and
 * every round trip costs a write and a wake-up on each side, most of a read's cost on the
 * benchmark's machine. Here the reads are sent without waiting for the answers before
 * them (pg's pipeline mode; PostgreSQL answers in order), and the reads of one event-loop
 * turn, from every request that turn handles, leave in one write. One connection did
 * better than two or four (docs/benchmarks.md): the fewer the connections, the more reads
 * share each write and each wake-up.
 *
 * Only reads outside a transaction come here. Each is its own implicit transaction (pg ends
 * every pipelined query with a Sync), so a failing read fails alone. A read that gets no
 * answer within the read timeout closes the connection (pg does it: the answers behind it
 * would wait forever), failing the reads behind it as an outage; the next read opens a
 * new connection, as does any read after the connection broke.
 */
export class PostgresLane {
  private client: Promise<pg.Client> | undefined;
  private ended = false;

  constructor(private readonly config: pg.ClientConfig) {}

  async query<R extends object>(q: { name: string; text: string; values: unknown[] }) {
    const connecting = this.connected();
    const client = await connecting;
    corkForThisTurn(client);
    try {
      return await client.query<R>(q);
    } catch (err) {
      // The server ended the connection (its error comes before the socket closes) or it
      // went silent: reads sent after this one must go to a new connection, not this one.
      if (isDatabaseOutage(err) && (err as { code?: string }).code !== STATEMENT_TIMEOUT) {
        this.retire(connecting);
      }
      throw err;
    }
  }

  async end(): Promise<void> {
    this.ended = true;
    const open = this.client;
    this.client = undefined;
    await open?.then((c) => c.end()).catch(() => {});
  }

  private retire(client: Promise<pg.Client>) {
    if (this.client !== client) return;
    this.client = undefined;
    client.then((c) => c.end()).catch(() => {});
  }

  private connected(): Promise<pg.Client> {
    // pg's own text for a query on a closed client, which errors.ts classes as an outage.
    if (this.ended) return Promise.reject(new Error('Client was closed and is not queryable'));
    if (this.client) return this.client;
    const c = new pg.Client({
      ...this.config,
      pipeline: true,
      application_name: LANE_APPLICATION_NAME,
    } as pg.ClientConfig);
    const client = c.connect().then(
      () => c,
      (err) => {
        forget();
        throw err;
      },
    );
    const forget = () => {
      if (this.client === client) this.client = undefined;
    };
    // A broken connection fails the reads on it (pg rejects them); the next read reconnects.
    c.on('error', forget);
    c.on('end', forget);
    this.client = client;
    return client;
  }
}

/** How the lane's connection shows in pg_stat_activity (docs/deployment.md, monitoring). */
export const LANE_APPLICATION_NAME = 'brs hot reads';

const corked = new WeakSet<pg.Client>();

/**
 * Holds the connection's writes until the event loop's next turn, so that the reads
 * submitted during this one leave together (10 to 15% more requests per second than a
 * write per read, measured).
 */
function corkForThisTurn(client: pg.Client) {
  if (corked.has(client)) return;
  // pg does not type its connection; its stream is the socket.
  const stream = (client as unknown as { connection: { stream: Socket } }).connection.stream;
  stream.cork();
  corked.add(client);
  setImmediate(() => {
    corked.delete(client);
    stream.uncork();
  });
}
