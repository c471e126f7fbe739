import type { FastifyBaseLogger } from 'fastify';
import { isUniqueViolation } from '../db/database.js';
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

/** Whether a database error means the database is unreachable or busy (a 503, not a bug). */
export function isDatabaseOutage(err: unknown): boolean {
  const code = (err as { code?: string })?.code ?? '';
  // SQLITE_BUSY and its variants (BUSY_SNAPSHOT, BUSY_TIMEOUT, …): another process held
  // the database longer than the busy timeout.
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P01', '57P03'].includes(code) ||
    code.startsWith('SQLITE_BUSY')
  );
}
