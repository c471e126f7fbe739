/**
 * The one error type of the service. Every front door renders it through `errorBody`,
 * so statuses and texts (CONTRACT.md) are decided here and nowhere else.
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
