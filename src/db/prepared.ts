import { type Compilable, CompiledQuery, type Expression, sql } from 'kysely';
import { type Db, gatherReads, postgresPool, sqliteHandle } from './database.js';

const MARK = '\u0000param:';
/** Each prepared query's name on PostgreSQL connections. */
let statements = 0;

type RawStatement = ReturnType<NonNullable<ReturnType<typeof sqliteHandle>>['prepareRaw']>;

/**
 * better-sqlite3 builds row objects property by property from native code; fetching
 * arrays and building the objects here is a third cheaper on a 21-row page (measured).
 */
function toObjects<R>(rows: unknown[][], columns: string[]): R[] {
  const out = new Array<R>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const o: Record<string, unknown> = {};
    for (let j = 0; j < columns.length; j++) o[columns[j]!] = row[j];
    out[i] = o as R;
  }
  return out;
}

/**
 * A query compiled once per database and re-run with new parameter values. Building and
 * compiling a Kysely query costs 10 to 20% of a hot request's CPU; the queries on the
 * request path of every call (key lookup, brand resolution, story reads) are declared
 * with this instead. `p('name')` stands for a parameter: a marker value that compilation
 * keeps in the parameter list, replaced by the named value on each run.
 *
 * On SQLite a parameter is written `+?`. SQLite marks a bare `?` that its planner reads
 * (a join's constant propagation, a LIMIT, an indexed comparison) as one the plan may
 * depend on, and prepares the statement again each time a value is bound to it: the whole
 * parse and plan on every run, 30 to 85% of these statements' time (the key lookup 36 µs
 * against 10, the story 90 µs against 13, measured). Unary plus changes neither the value
 * nor its type and is not a bare parameter; the plans use the same index ranges.
 * Constants are literals (`sql.lit('live')`) for the same reason.
 */
export function prepared<P extends Record<string, unknown>, R>(
  label: string,
  build: (db: Db, p: <K extends keyof P & string>(name: K) => Expression<P[K]>) => Compilable<R>,
  /**
   * `gather`: a request's first read. On SQLite it waits for the turn's other first reads
   * and runs in one pass with them (database.ts, gatherReads).
   */
  options: { gather?: boolean } = {},
) {
  const compiled = new WeakMap<Db, CompiledQuery<R>>();
  const name = `brs_${++statements}`;
  const readers = new WeakMap<Db, { statement: RawStatement; columns: string[] }>();

  function bind(db: Db, params: P): { sql: string; values: unknown[] } {
    let query = compiled.get(db);
    if (!query) {
      const onSqlite = sqliteHandle(db) !== undefined;
      const marker = <K extends keyof P & string>(param: K): Expression<P[K]> => {
        const value = sql.val<P[K]>(`${MARK}${param}` as P[K]);
        return onSqlite ? sql<P[K]>`+${value}` : value;
      };
      query = build(db, marker).compile();
      compiled.set(db, query);
    }
    const values = query.parameters.map((v) =>
      typeof v === 'string' && v.startsWith(MARK) ? params[v.slice(MARK.length)] : v,
    );
    return { sql: query.sql, values };
  }

  async function all(db: Db, params: P): Promise<R[]> {
    const { sql, values } = bind(db, params);
    // On SQLite, run the cached statement synchronously, skipping the driver's async
    // plumbing (about a third of a read's cost), in the read transaction that the reads of
    // this pass share (database.ts, sharedReads). Not while a transaction of Kysely's is
    // open on the connection: then the read waits its turn through Kysely like any other,
    // so it can never see another request's uncommitted writes.
    const sqlite = sqliteHandle(db);
    const pool = postgresPool(db);
    if (sqlite) {
      if (options.gather) await gatherReads();
      let reader = readers.get(db);
      if (!reader) {
        const statement = sqlite.prepareRaw(sql);
        reader = { statement, columns: statement.columns().map((c) => c.name) };
        readers.set(db, reader);
      }
      const rows = sqlite.read(reader.statement, values);
      if (rows) return toObjects(rows, reader.columns);
    } else if (pool) {
      // On PostgreSQL, a named statement: the connection parses and plans it once, then
      // only binds and runs it (parsing and planning were most of the server's CPU for
      // these short reads), on the pipelined connection of the hot reads
      // (postgres-lane.ts). Inside a transaction, Kysely's connection.
      return (await pool.lane.query<R & object>({ name, text: sql, values })).rows;
    }
    return (await db.executeQuery(CompiledQuery.raw(sql, values) as CompiledQuery<R>)).rows;
  }

  hotQueries.push({
    label,
    compile: (db, params) => bind(db, params as P),
  });
  return {
    all,
    first: async (db: Db, params: P): Promise<R | undefined> => (await all(db, params))[0],
  };
}

/**
 * Every prepared query: the statements on the path of every call, which must each run on
 * an index whatever the size of the data (query-plans.ts checks their plans).
 */
export const hotQueries: {
  label: string;
  /** Its SQL and values for these parameters (those it does not take are ignored). */
  compile: (db: Db, params: Record<string, unknown>) => { sql: string; values: unknown[] };
}[] = [];
