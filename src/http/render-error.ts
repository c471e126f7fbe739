import type { FastifyBaseLogger } from 'fastify';
import { isUniqueViolation } from '../db/database.js';
import { SQLITE_FILE_MOVED } from '../db/sqlite-file-guard.js';
import { AppError, errorBody } from '../errors.js';

export interface Rendered {
  status: number;
  body: { error: string };
  headers: Record<string, string>;
}

/** Fastify's own client errors, mapped to the contract's 400 texts. */
const FASTIFY_CLIENT_ERRORS: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'body: malformed JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'body: must be a JSON object',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'body: must be JSON (Content-Type: application/json)',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'body: Content-Length does not match the body',
  FST_ERR_CTP_BODY_TOO_LARGE: 'body: too large',
};

/**
 * Turns anything thrown into the contract's error answer. An unknown error is a bug:
 * it is logged with the request id and answers a generic 500 that leaks nothing.
 */
export function renderError(err: unknown, log?: FastifyBaseLogger): Rendered {
  if (err instanceof AppError) {
    return { status: err.status, body: errorBody(err), headers: err.headers };
  }
  const code = (err as { code?: string })?.code;
  if (code && code in FASTIFY_CLIENT_ERRORS) {
    const status = code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 413 : 400;
    return { status, body: { error: FASTIFY_CLIENT_ERRORS[code]! }, headers: {} };
  }
  const statusCode = (err as { statusCode?: number })?.statusCode;
  if (code?.startsWith('FST_') && statusCode && statusCode >= 400 && statusCode < 500) {
    return {
      status: statusCode,
      body: { error: `request: ${(err as Error).message}` },
      headers: {},
    };
  }
  if (isUniqueViolation(err)) {
    // A check-then-insert lost a race: the state changed under the request, a 409.
    return { status: 409, body: { error: 'conflict' }, headers: {} };
  }
  if (isDatabaseOutage(err)) {
    log?.error({ err }, 'dependency unavailable');
    return { status: 503, body: { error: 'service unavailable' }, headers: {} };
  }
  log?.error({ err }, 'unhandled error');
  return { status: 500, body: { error: 'internal error' }, headers: {} };
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
 * within connectionTimeoutMillis, a connection closed under a query, and a query on one.
 */
const PG_OUTAGE_MESSAGE =
  /^(Query read timeout|timeout exceeded when trying to connect|Connection terminated|Client was closed and is not queryable|Client has encountered a connection error and is not queryable)/;

/** Whether a database error means the database is unreachable or busy (a 503, not a bug). */
export function isDatabaseOutage(err: unknown): boolean {
  const code = (err as { code?: string })?.code ?? '';
  // SQLITE_BUSY and its variants (BUSY_SNAPSHOT, BUSY_TIMEOUT, …): another process held
  // the database longer than the busy timeout. Class 08: PostgreSQL connection exceptions.
  if (OUTAGE_CODES.has(code) || code.startsWith('SQLITE_BUSY') || /^08[0-9A-Z]{3}$/.test(code)) {
    return true;
  }
  return !code && err instanceof Error && PG_OUTAGE_MESSAGE.test(err.message);
}
