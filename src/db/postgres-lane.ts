import pg from 'pg';
import { isDatabaseOutage } from './errors.js';
import { laneValue, ReadBatch, ReadNotRun } from './read-batch.js';

/** query_canceled: the statement ran past statement_timeout; the connection is fine. */
const STATEMENT_TIMEOUT = '57014';

/** How many times a read that never ran (an earlier read of its batch failed) is sent again. */
const RESENDS = 3;

/**
 * One connection per process for the hot path's short reads (prepared.ts), beside the
 * pool. On the pool a read has a connection to itself for its round trip, and every round
 * trip costs a write and a wake-up on each side, most of a read's cost on the benchmark's
 * machine. Here the reads of one event-loop turn, from every request that turn handles,
 * leave as one batch (read-batch.ts): one write, and one Sync behind them all, so that
 * PostgreSQL answers them in one send instead of one per read. While a batch is out, the
 * next one gathers the reads of the turns that follow, so the busier the process, the
 * more reads share each round trip. One connection did better than two or four
 * (docs/benchmarks.md): the fewer the connections, the more reads share each write and
 * each wake-up.
 *
 * Only reads outside a transaction come here. A read that fails fails alone: the reads
 * after it in its batch, which PostgreSQL skips, are sent again. A batch that gets no
 * answer within the read timeout closes the connection (the answers behind it would wait
 * forever), failing the reads queued behind it as an outage; the next read opens a new
 * connection, as does any read after the connection broke.
 */
export class PostgresLane {
  private connection: Promise<LaneConnection> | undefined;
  private ended = false;

  constructor(private readonly config: pg.ClientConfig) {}

  async query<R extends object>(q: {
    name: string;
    text: string;
    values: unknown[];
  }): Promise<{ rows: R[] }> {
    for (let resend = 0; ; resend++) {
      const connecting = this.connected();
      const connection = await connecting;
      try {
        return { rows: (await read(connection, q)) as R[] };
      } catch (err) {
        if (err instanceof ReadNotRun) {
          if (resend < RESENDS) continue;
          throw err.cause;
        }
        // The server ended the connection (its error comes before the socket closes) or it
        // went silent: reads sent after this one must go to a new connection, not this one.
        if (isDatabaseOutage(err) && (err as { code?: string }).code !== STATEMENT_TIMEOUT) {
          this.retire(connecting);
        }
        throw err;
      }
    }
  }

  async end(): Promise<void> {
    this.ended = true;
    const open = this.connection;
    this.connection = undefined;
    await open?.then((c) => c.client.end()).catch(() => {});
  }

  private retire(connection: Promise<LaneConnection>) {
    if (this.connection !== connection) return;
    this.connection = undefined;
    connection.then((c) => c.client.end()).catch(() => {});
  }

  private connected(): Promise<LaneConnection> {
    // pg's own text for a query on a closed client, which errors.ts classes as an outage.
    if (this.ended) return Promise.reject(new Error('Client was closed and is not queryable'));
    if (this.connection) return this.connection;
    const client = new pg.Client({ ...this.config, application_name: LANE_APPLICATION_NAME });
    const connection = client.connect().then(
      (): LaneConnection => ({ client, statements: new Map(), gathering: undefined }),
      (err) => {
        forget();
        throw err;
      },
    );
    const forget = () => {
      if (this.connection === connection) this.connection = undefined;
    };
    // A broken connection fails the reads on it (pg rejects them); the next read reconnects.
    client.on('error', forget);
    client.on('end', forget);
    this.connection = connection;
    return connection;
  }
}

interface LaneConnection {
  client: pg.Client;
  /** The statements prepared on this connection (read-batch.ts). */
  statements: ReadBatch['statements'];
  /** The batch gathering this turn's reads, not yet written. */
  gathering: ReadBatch | undefined;
}

/** Adds the read to the connection's gathering batch, which pg writes once it is free. */
function read(connection: LaneConnection, q: { name: string; text: string; values: unknown[] }) {
  return new Promise<object[]>((resolve, reject) => {
    const values = q.values.map(laneValue);
    let batch = connection.gathering;
    if (!batch) {
      const gathered = new ReadBatch(connection.statements, () => {
        if (connection.gathering === gathered) connection.gathering = undefined;
      });
      connection.gathering = gathered;
      batch = gathered;
      // At the end of this turn pg gets the batch; it writes it at once if no batch is out,
      // or when the one out is answered, with every read gathered until then. (pg types a
      // custom query's connection as its own class; read-batch.ts names what it uses.)
      setImmediate(() => connection.client.query(gathered as unknown as pg.Submittable));
    }
    batch.reads.push({ name: q.name, text: q.text, values, resolve, reject });
  });
}

/** How the lane's connection shows in pg_stat_activity (docs/deployment.md, monitoring). */
export const LANE_APPLICATION_NAME = 'brs hot reads';
