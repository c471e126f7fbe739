import type { FastifyBaseLogger } from 'fastify';
import { driverFailure } from './db/errors.js';

/**
 * The one error type of the service, and how each audience is told about any error:
 * REST and JSON answers (`restError`), MCP tool results (`toolError`) and pages
 * (`pageError`). Statuses and texts (CONTRACT.md) are decided here and nowhere else.
 */
export type ErrorCode =
  | 'invalid'
  | 'unauthenticated'
  | 'payment_failed'
  | 'forbidden'
  | 'delegated_assignment'
  | 'not_found'
  | 'unknown_teammate'
  | 'email_taken'
  | 'conflict'
  | 'idempotency_in_progress'
  | 'idempotency_mismatch'
  | 'rate_limited'
  | 'unavailable';

const TABLE: Record<ErrorCode, { status: number; text: string }> = {
  invalid: { status: 400, text: 'invalid request' },
  unauthenticated: { status: 401, text: 'unknown or revoked API key' },
  payment_failed: { status: 402, text: 'payment failed; nothing was unlocked' },
  forbidden: { status: 403, text: "outside this key's brand scope" },
  delegated_assignment: { status: 403, text: 'assignment is not allowed on a delegated brand' },
  not_found: { status: 404, text: 'not found' },
  unknown_teammate: { status: 404, text: 'unknown teammate; pass invite=true to invite them' },
  email_taken: { status: 409, text: 'email belongs to another account' },
  conflict: { status: 409, text: 'conflict' },
  idempotency_in_progress: {
    status: 409,
    text: 'a request with this Idempotency-Key is in progress',
  },
  idempotency_mismatch: { status: 422, text: 'Idempotency-Key was used with a different request' },
  rate_limited: { status: 429, text: 'rate limit exceeded' },
  unavailable: { status: 503, text: 'service unavailable' },
};

export class AppError extends Error {
  readonly status: number;
  /** Extra response headers, e.g. Retry-After on 429. */
  readonly headers: Record<string, string>;
  /**
   * Why a refusal happened, for the people who read it: the MCP result's `reason` and the
   * portal's page text. The `error` text stays the one the specification fixes.
   */
  reason?: string;

  constructor(
    readonly code: ErrorCode,
    text?: string,
    headers: Record<string, string> = {},
  ) {
    super(text ?? TABLE[code].text);
    this.status = TABLE[code].status;
    this.headers = headers;
  }
}

/**
 * `invalid` and `conflict` carry texts of their own; the API uses every other code with
 * its fixed text (operator-only paths may name what they could not find).
 */
export const invalid = (text: string) => new AppError('invalid', text);
export const conflict = (text: string) => new AppError('conflict', text);
export const notFound = () => new AppError('not_found');
/** The one 403 text of spec 7 on every door; `reason` says which bar was not met. */
export const forbidden = (reason: string) => {
  const e = new AppError('forbidden');
  e.reason = reason;
  return e;
};

export function errorBody(error: AppError): { error: string } {
  return { error: error.message };
}

/**
 * What anything thrown means to a caller: an AppError as it is, a database driver's
 * failure as the db layer classes it (a lost race is a 409, an outage a 503), or null
 * for a bug. Outages are logged here, once.
 */
function known(err: unknown, log?: FastifyBaseLogger): AppError | null {
  if (err instanceof AppError) return err;
  switch (driverFailure(err)) {
    case 'unique_violation':
      // A check-then-insert lost a race: the state changed under the request.
      return new AppError('conflict');
    case 'outage':
      log?.error({ err }, 'dependency unavailable');
      return new AppError('unavailable');
    default:
      return null;
  }
}

export interface RestError {
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
 * An error as a JSON answer (REST, and the JSON routes beside it). An unknown error is a
 * bug: it is logged with the request id and answers a generic 500 that leaks nothing.
 */
export function restError(err: unknown, log?: FastifyBaseLogger): RestError {
  const e = known(err, log);
  if (e) return { status: e.status, body: errorBody(e), headers: e.headers };
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
  log?.error({ err }, 'unhandled error');
  return { status: 500, body: { error: 'internal error' }, headers: {} };
}

/**
 * An error as an MCP tool's structured result, for keys and people alike: the REST body
 * and status (spec 7 fixes the 403 text on every door), and for a 403 the bar that was
 * not met in words, which the fixed text does not say.
 */
export function toolError(
  err: unknown,
  log?: FastifyBaseLogger,
): { error: string; status: number; reason?: string } {
  const { status, body } = restError(err, log);
  const reason = err instanceof AppError ? err.reason : undefined;
  return { ...body, status, ...(reason !== undefined && { reason }) };
}

/** What the portal's pages say to a person, where the API's text is written for a program. */
const PAGE_TEXT: Partial<Record<ErrorCode, string>> = {
  forbidden: 'Not allowed.',
  not_found: 'Not found.',
  unknown_teammate: 'No teammate has that email. Invite them from the Team page first.',
  rate_limited: 'Too many requests. Wait a minute and try again.',
  unavailable: 'The service is busy or down for a moment. Try again shortly.',
};

/**
 * An error as a page says it: the status and one sentence. A bug is a 500 that says only
 * that something went wrong (logged with the request id).
 */
export function pageError(
  err: unknown,
  log?: FastifyBaseLogger,
): { status: number; text: string; headers: Record<string, string> } {
  const e = known(err, log);
  if (!e) {
    const r = restError(err, log);
    const text = r.status >= 500 ? 'Something went wrong.' : r.body.error;
    return { status: r.status, text: sentence(text), headers: r.headers };
  }
  const text =
    e.code === 'forbidden' && e.reason
      ? `Not allowed: ${e.reason}.`
      : (PAGE_TEXT[e.code] ?? e.message);
  return { status: e.status, text: sentence(text), headers: e.headers };
}

const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
