import pg from 'pg';
import { isDatabaseOutage } from './errors.js';
import { laneValue, ReadBatch, ReadNotRun } from './read-batch.js';

/** query_canceled: the statement ran past statement_timeout; the connection is fine. */
const STATEMENT_TIMEOUT = '57014';

/**
 * The most reads in one batch: a batch answers at its Sync, as quick as its slowest read,
 * so a bound keeps what one slow read holds up bounded too.
 */
const MAX_BATCH = 64;

/**
 * How many times a read that did not run (read-batch.ts) is sent again. The reads a batch
 * skipped leave first, in their order, as a batch of their own: each time, the read that
 * failed ahead of them is gone, so a read is sent again at most once per read ahead of it.
 */
const RESENDS = MAX_BATCH;

/** How long `end` waits for the reads out to be answered before it closes the connection. */
const END_WAIT_MS = 5_000;

/**
 * One connection per process for the hot path's short reads (prepared.ts), beside the
 * pool. On the pool a read has a connection to itself for its round trip, and every round
 * trip costs a write and a wake-up on each side, most of a read's cost on the benchmark's
 * machine. Here the reads of one event-loop turn, from every request that turn handles,
 * leave as one batch (read-batch.ts): one write, and one Sync behind them all, so that
 * PostgreSQL answers them in one send instead of one per read. While a batch is out, the
 * next one gathers the reads of the turns that follow, so the busier the process, the
 * more reads share each round trip (up to MAX_BATCH). One connection did better than two
 * or four (docs/benchmarks.md): the fewer the connections, the more reads share each write
 * and each wake-up.
 *
 * Only reads outside a transaction come here. A read that fails fails alone: the reads
 * after it in its batch, which PostgreSQL skips, are sent again before any other. A batch
 * that gets no answer within the read timeout closes the connection (the answers behind it
 * would wait forever), failing its reads as an outage; the batches not yet written go to
 * the next connection, which the next read opens, as after any break.
 */
export class PostgresLane {
  private connection: Promise<LaneConnection> | undefined;
  private ended = false;
  /** Reads asked for and not yet answered, and who waits for there to be none (end). */
  private inFlight = 0;
  private readonly idle: (() => void)[] = [];

  constructor(private readonly config: pg.ClientConfig) {}

  async query<R extends object>(q: {
    name: string;
    text: string;
    values: unknown[];
  }): Promise<{ rows: R[] }> {
    const values = q.values.map(laneValue);
    this.inFlight++;
    try {
      for (let resend = 0; ; resend++) {
        const connecting = this.connected();
        const connection = await connecting;
        try {
          return { rows: (await connection.read(q.name, q.text, values, resend > 0)) as R[] };
        } catch (err) {
          if (err instanceof ReadNotRun) {
            if (resend < RESENDS) continue;
            throw err;
          }
          // The server ended the connection (its error comes before the socket closes) or it
          // went silent: reads sent after this one must go to a new connection, not this one.
          if (isDatabaseOutage(err) && (err as { code?: string }).code !== STATEMENT_TIMEOUT) {
            this.retire(connecting);
          }
          throw err;
        }
      }
    } finally {
      if (--this.inFlight === 0) for (const done of this.idle.splice(0)) done();
    }
  }

  /** Refuses new reads, lets those out be answered (for END_WAIT_MS at most), then closes. */
  async end(): Promise<void> {
    this.ended = true;
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, END_WAIT_MS);
        this.idle.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
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
      () => new LaneConnection(client),
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

/**
 * The lane's connection and its batches: the one out (written, waiting for its answers),
 * the reads to send again, the batches full and waiting their turn, and the one gathering
 * reads. Only one is ever handed to pg at a time, so pg's own queue stays empty.
 */
class LaneConnection {
  /** The statements prepared on this connection (read-batch.ts). */
  private readonly statements: ReadBatch['statements'] = new Map();
  private out: ReadBatch | undefined;
  /** The reads that did not run, sent again before any other. */
  private again: ReadBatch | undefined;
  private readonly full: ReadBatch[] = [];
  private gathering: ReadBatch | undefined;
  private scheduled = false;

  constructor(readonly client: pg.Client) {
    // Batches not yet written when the connection ends did not run: their reads go to the
    // next connection (ReadNotRun). pg fails the one out itself.
    client.on('end', () => {
      const waiting = [this.again, ...this.full, this.gathering].filter((b) => b !== undefined);
      this.again = undefined;
      this.full.length = 0;
      this.gathering = undefined;
      for (const batch of waiting) batch.handleError(new Error('Connection terminated'));
    });
  }

  read(name: string, text: string, values: (string | null)[], again: boolean) {
    return new Promise<object[]>((resolve, reject) => {
      const read = { name, text, values, resolve, reject };
      if (again) {
        // All from the one batch that skipped them, so never more than MAX_BATCH.
        this.again ??= this.batch();
        this.again.reads.push(read);
        return;
      }
      this.gathering ??= this.batch();
      this.gathering.reads.push(read);
      if (this.gathering.reads.length >= MAX_BATCH) {
        this.full.push(this.gathering);
        this.gathering = undefined;
      }
    });
  }

  private batch() {
    const batch = new ReadBatch(this.statements, () => this.finished(batch));
    this.schedule();
    return batch;
  }

  /** At the end of this turn, the next batch is written if none is out. */
  private schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.writeNext();
    });
  }

  private writeNext() {
    if (this.out) return;
    const next = this.again ?? this.full.shift() ?? this.gathering;
    if (!next) return;
    if (next === this.again) this.again = undefined;
    if (next === this.gathering) this.gathering = undefined;
    this.out = next;
    try {
      // pg types a custom query's connection as its own class; read-batch.ts names what it uses.
      this.client.query(next as unknown as pg.Submittable);
    } catch (err) {
      // Thrown here it would end the process; it fails the batch's reads instead.
      next.handleError(err as Error);
    }
  }

  /** When the batch out has every outcome, the next one leaves at the end of this turn. */
  private finished(batch: ReadBatch) {
    if (batch !== this.out) return;
    this.out = undefined;
    if (this.again || this.full.length > 0 || this.gathering) this.schedule();
  }
}

/** How the lane's connection shows in pg_stat_activity (docs/deployment.md, monitoring). */
export const LANE_APPLICATION_NAME = 'brs hot reads';
