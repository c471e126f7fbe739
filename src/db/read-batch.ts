import pg from 'pg';

/** A read on the lane: a named statement, its values as text, and who waits for its rows. */
export interface LaneRead {
  name: string;
  text: string;
  values: (string | null)[];
  resolve: (rows: object[]) => void;
  reject: (err: unknown) => void;
}

/** What a connection knows of a statement prepared on it: its columns and their parsers. */
interface Statement {
  names: string[];
  parsers: ((text: string) => unknown)[];
}

/**
 * A read that did not run: PostgreSQL skipped it because a read before it in its batch
 * failed, or its batch was never written (the connection broke first). The lane sends it
 * again; one that still has not run after that fails as an outage (errors.ts).
 */
export class ReadNotRun extends Error {
  constructor(
    cause: unknown,
    /** Never sent (the connection broke first), rather than skipped by PostgreSQL. */
    readonly unsent: boolean,
  ) {
    super('the read did not run: an earlier read of its batch failed or the connection broke', {
      cause,
    });
  }
}

/** pg's own text for a query with no answer in time, which errors.ts classes as an outage. */
const NO_ANSWER = 'Query read timeout';

/** pg's message shapes, as its parser hands them to a query (pg does not export the types). */
type Connection = {
  stream: { cork(): void; uncork(): void };
  close(m: { type: 'S'; name: string }): void;
  parse(m: { name: string; text: string; types: never[] }): void;
  bind(m: { statement: string; values: (string | null)[] }): void;
  describe(m: { type: 'P'; name: string }): void;
  execute(m: { portal: string; rows: number }): void;
  sync(): void;
};
type Field = { name: string; dataTypeID: number };

/**
 * The reads of one turn (or of the turns a busy connection made wait) as one query for pg's
 * client: written in one write, each read as Bind and Execute of its named statement, and
 * one Sync behind them all. With a Sync per read, PostgreSQL sends each answer on its own,
 * a system call and a wake-up each (most of its time for these reads, measured); with one
 * Sync it sends them together. Behind one Sync the reads share an implicit transaction:
 * each still sees what was committed when it started (read committed), but a failing read
 * makes PostgreSQL skip the ones after it, which are answered `ReadNotRun` to be sent again
 * (before any other, postgres-lane.ts), as are the reads of a batch that was never written.
 * The answers come at the Sync (or as PostgreSQL's output buffer fills): a batch is as
 * quick as its slowest read, and must be answered within `stallMs` of its write or of its
 * last answer, as each of pg's pipelined reads had to be within its read timeout of being
 * sent. Past that the connection counts as one that stopped answering; the lane closes it
 * even when every read had its answer and only the batch's end is missing.
 *
 * A statement new to the connection is closed (in case an earlier batch parsed it and then
 * failed), parsed and described once; after that its rows are read with the columns and
 * pg's own type parsers learnt then, so PostgreSQL does not describe it on every run.
 *
 * pg calls the handle* methods with the answers of this query, in order (the interface
 * pg-cursor implements); the connection must not be in pipeline mode.
 */
export class ReadBatch {
  readonly reads: LaneRead[] = [];
  /** pg sets this on a query it runs; the batch calls it with the outcome. */
  callback: ((err: Error | null) => void) | undefined;
  private stall: NodeJS.Timeout | undefined;
  private answered = 0;
  private rows: object[] = [];
  /** A row of the read being answered that could not be read (pg's parsers threw). */
  private unreadable: unknown;
  written = false;
  private finished = false;

  constructor(
    readonly statements: Map<string, Statement>,
    /** How long the batch waits for its next answer before the connection counts as dead. */
    private readonly stallMs: number,
    /** Called once every read has its outcome, with the error that ended the batch, if any. */
    private readonly onFinish: (err?: Error) => void,
  ) {}

  submit(connection: Connection) {
    this.written = true;
    this.stall = setTimeout(() => this.handleError(new Error(NO_ANSWER)), this.stallMs);
    const preparing = new Set<string>();
    connection.stream.cork();
    try {
      for (const read of this.reads) {
        const fresh = !this.statements.has(read.name) && !preparing.has(read.name);
        if (fresh) {
          preparing.add(read.name);
          connection.close({ type: 'S', name: read.name });
          connection.parse({ name: read.name, text: read.text, types: [] });
        }
        connection.bind({ statement: read.name, values: read.values });
        if (fresh) connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '', rows: 0 });
      }
      connection.sync();
    } finally {
      connection.stream.uncork();
    }
    return null;
  }

  handleRowDescription(msg: { fields: Field[] }) {
    if (this.finished) return;
    this.stall?.refresh();
    const read = this.reads[this.answered]!;
    this.statements.set(read.name, {
      names: msg.fields.map((f) => f.name),
      parsers: msg.fields.map((f) => pg.types.getTypeParser(f.dataTypeID, 'text')),
    });
  }

  handleDataRow(msg: { fields: (string | null)[] }) {
    if (this.finished || this.unreadable) return;
    try {
      const { names, parsers } = this.statements.get(this.reads[this.answered]!.name)!;
      const row: Record<string, unknown> = {};
      const fields = msg.fields;
      for (let i = 0; i < names.length; i++) {
        const text = fields[i];
        row[names[i]!] = text === null || text === undefined ? null : parsers[i]!(text);
      }
      this.rows.push(row);
    } catch (err) {
      // Thrown here, it would reach pg's socket handler; the read fails on its own instead.
      this.unreadable = err;
    }
  }

  handleCommandComplete() {
    if (this.finished) return;
    this.stall?.refresh();
    const read = this.reads[this.answered++]!;
    const { rows, unreadable } = this;
    this.rows = [];
    this.unreadable = undefined;
    if (unreadable) read.reject(unreadable);
    else read.resolve(rows);
  }

  handleEmptyQuery() {
    this.handleCommandComplete();
  }

  handleError(err: Error) {
    if (this.finished) return;
    this.finished = true;
    const pending = this.reads.slice(this.answered);
    // An error from PostgreSQL belongs to the read it answers, and the server skipped the
    // rest; any other (the connection broke, no answer in time) fails every read left,
    // unless the batch was never written: then none of them ran.
    clearTimeout(this.stall);
    if (!this.written) {
      for (const read of pending) read.reject(new ReadNotRun(err, true));
    } else if (err instanceof pg.DatabaseError) {
      pending.shift()?.reject(err);
      for (const read of pending) read.reject(new ReadNotRun(err, false));
    } else {
      for (const read of pending) read.reject(err);
    }
    this.callback?.(err);
    this.onFinish(err);
  }

  handleReadyForQuery() {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.stall);
    // Every read was answered before the Sync's; a read left over means the answers and the
    // reads fell out of step, which only a broken connection could do.
    let lost: Error | undefined;
    if (this.answered < this.reads.length) {
      lost = new Error('Connection terminated: a read of the batch got no answer');
      for (const read of this.reads.slice(this.answered)) read.reject(lost);
    }
    this.callback?.(null);
    this.onFinish(lost);
  }
}

/**
 * A statement's value as PostgreSQL's text, as pg's own query would send it. The hot reads
 * take text, numbers and booleans; anything else is a programming error, thrown before the
 * read joins a batch.
 */
export function laneValue(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  throw new TypeError(`a hot read takes text, numbers and booleans, not ${typeof v}`);
}
