import type { Socket } from 'node:net';
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
 * skipped leave first, in their order: each time, the read that failed ahead of them is
 * gone, so a read is skipped at most once per read ahead of it. A read never sent because
 * its connection broke goes to the next one, a few times at most.
 */
const RESENDS = { skipped: MAX_BATCH, unsent: 3 };

/** Without a configured read timeout (query_timeout), a batch still gives up after this. */
const DEFAULT_STALL_MS = 60_000;

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
      const resent = { skipped: 0, unsent: 0 };
      for (;;) {
        const connecting = this.connected();
        const connection = await connecting;
        try {
          const again = resent.skipped + resent.unsent > 0;
          return { rows: (await connection.read(q.name, q.text, values, again)) as R[] };
        } catch (err) {
          if (err instanceof ReadNotRun) {
            const kind = err.unsent ? 'unsent' : 'skipped';
            if (++resent[kind] <= RESENDS[kind]) continue;
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
    await open?.then((c) => c.close()).catch(() => {});
  }

  private retire(connection: Promise<LaneConnection>) {
    if (this.connection !== connection) return;
    this.connection = undefined;
    connection.then((c) => c.close()).catch(() => {});
  }

  private connected(): Promise<LaneConnection> {
    // pg's own text for a query on a closed client, which errors.ts classes as an outage.
    if (this.ended) return Promise.reject(new Error('Client was closed and is not queryable'));
    if (this.connection) return this.connection;
    // The batch keeps the read timeout itself (read-batch.ts): pg's would fail its reads
    // but leave a batch whose reads all had their answers in place, and the lane behind it.
    const { query_timeout: stallMs = DEFAULT_STALL_MS, ...config } = this.config;
    const client = new pg.Client({
      ...withLaneSettings(config),
      application_name: LANE_APPLICATION_NAME,
    });
    const connection: Promise<LaneConnection> = client.connect().then(
      () => new LaneConnection(client, stallMs, () => this.retire(connection)),
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
 * reads. Only one is ever handed to pg at a time, so pg's own queue stays empty. Once the
 * connection breaks (it ended, or a batch out failed other than by PostgreSQL's answer)
 * it takes no more reads: those waiting go to the next connection (ReadNotRun).
 */
class LaneConnection {
  /** The statements prepared on this connection (read-batch.ts). */
  private readonly statements: ReadBatch['statements'] = new Map();
  private out: ReadBatch | undefined;
  /** The reads that did not run, sent again before any other. */
  private readonly again: ReadBatch[] = [];
  private readonly full: ReadBatch[] = [];
  private gathering: ReadBatch | undefined;
  private scheduled = false;
  private broken: Error | undefined;

  constructor(
    private readonly client: pg.Client,
    private readonly stallMs: number,
    /** Tells the lane to use another connection from now on. */
    private readonly onBreak: () => void,
  ) {
    client.on('end', () => this.break(new Error('Connection terminated')));
    client.on('error', (err) => this.break(err));
  }

  read(name: string, text: string, values: (string | null)[], again: boolean) {
    return new Promise<object[]>((resolve, reject) => {
      if (this.broken) {
        reject(new ReadNotRun(this.broken, true));
        return;
      }
      const read = { name, text, values, resolve, reject };
      if (again) {
        let batch = this.again.at(-1);
        if (!batch || batch.reads.length >= MAX_BATCH) {
          batch = this.batch();
          this.again.push(batch);
        }
        batch.reads.push(read);
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

  /** Closes the connection: pg waits for the batch out, unless the peer has gone silent. */
  async close() {
    const ended = this.client.end();
    const timer = setTimeout(() => this.destroy(), END_WAIT_MS);
    await ended.finally(() => clearTimeout(timer));
  }

  private destroy() {
    // pg does not type its connection; its stream is the socket.
    (this.client as unknown as { connection: { stream: Socket } }).connection.stream.destroy();
  }

  /** Fails what waits (to the next connection), tells the lane, and closes the socket. */
  private break(err: Error) {
    if (this.broken) return;
    this.broken = err;
    const waiting = [...this.again, ...this.full, this.gathering].filter((b) => b !== undefined);
    this.again.length = 0;
    this.full.length = 0;
    this.gathering = undefined;
    for (const batch of waiting) batch.handleError(err);
    this.onBreak();
    this.destroy();
  }

  private batch() {
    const batch = new ReadBatch(this.statements, this.stallMs, (err) => this.finished(batch, err));
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
    if (this.out || this.broken) return;
    const next = this.again.shift() ?? this.full.shift() ?? this.gathering;
    if (!next) return;
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
  private finished(batch: ReadBatch, err?: Error) {
    if (batch !== this.out) return;
    this.out = undefined;
    // Any failure but PostgreSQL's answer to a read (which leaves the connection as it was)
    // means the connection can no longer be trusted to answer in order.
    if (err && !(err instanceof pg.DatabaseError && batch.written)) this.break(err);
    else if (this.again.length > 0 || this.full.length > 0 || this.gathering) this.schedule();
  }
}

/** How the lane's connection shows in pg_stat_activity (docs/deployment.md, monitoring). */
export const LANE_APPLICATION_NAME = 'brs hot reads';

/**
 * The lane's session settings: a random page costed as a sequential one (1.1 where
 * PostgreSQL assumes 4, a spinning disk's ratio). Every hot read is a lookup on an index
 * (query-plans.ts checks each has one) of pages read so often that they stay in memory;
 * at the default, PostgreSQL read a table of a hundred rows whole instead (accounts and
 * brands beside the key: 37–43 µs of the backend's CPU per lookup against 17, the
 * benchmark's PostgreSQL `get_story` about a third faster: docs/benchmarks.md). Options
 * given in the URL (which pg would take instead of these) or PGOPTIONS come after, so a
 * setting chosen there, random_page_cost too, wins.
 */
function withLaneSettings(config: pg.ClientConfig): pg.ClientConfig {
  const url = config.connectionString ? new URL(config.connectionString) : undefined;
  const inUrl = url?.searchParams.get('options') ?? undefined;
  url?.searchParams.delete('options');
  const given = inUrl ?? config.options ?? process.env.PGOPTIONS;
  return {
    ...config,
    ...(inUrl !== undefined && url && { connectionString: url.toString() }),
    options: ['-c random_page_cost=1.1', given].filter(Boolean).join(' '),
  };
}
