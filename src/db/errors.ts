import { ReadNotRun } from './read-batch.js';
import { SQLITE_FILE_MOVED } from './sqlite-file-guard.js';

/**
 * What the database drivers' errors mean, decided here once for both dialects: a unique
 * violation (a check-then-insert lost a race), an outage (unreachable, busy, timed out),
 * or anything else (a bug).
 */
export type DriverFailure = 'unique_violation' | 'outage';

export function driverFailure(err: unknown): DriverFailure | null {
  if (isUniqueViolation(err)) return 'unique_violation';
  if (isDatabaseOutage(err)) return 'outage';
  return null;
}

/** Whether a database error is a unique-constraint violation, on either dialect. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return (
    code === '23505' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

/** Error codes of a database that cannot be reached or would not answer in time. */
const OUTAGE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '57014', // query_canceled: statement_timeout
  '53300', // too_many_connections
  SQLITE_FILE_MOVED,
]);

/**
 * pg reports its own timeouts and lost connections as plain errors, told apart only by
 * their text: a query with no answer within query_timeout, no free pooled connection
 * within connectionTimeoutMillis, a client (the hot reads' own, postgres-lane.ts) not
 * connected within it, a connection closed under a query, and a query on one.
 */
const PG_OUTAGE_MESSAGE =
  /^(Query read timeout|timeout exceeded when trying to connect|timeout expired$|Connection terminated|Client was closed and is not queryable|Client has encountered a connection error and is not queryable)/;

/** Whether a database error means the database is unreachable or busy (a 503, not a bug). */
export function isDatabaseOutage(err: unknown): boolean {
  // A hot read that, sent again and again, never ran: its batches kept failing or breaking.
  if (err instanceof ReadNotRun) return true;
  const code = (err as { code?: string })?.code ?? '';
  // SQLITE_BUSY and its variants (BUSY_SNAPSHOT, BUSY_TIMEOUT, …): another process held
  // the database longer than the busy timeout. Class 08: PostgreSQL connection exceptions.
  if (OUTAGE_CODES.has(code) || code.startsWith('SQLITE_BUSY') || /^08[0-9A-Z]{3}$/.test(code)) {
    return true;
  }
  return !code && err instanceof Error && PG_OUTAGE_MESSAGE.test(err.message);
}
