import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { renderError } from '../../src/http/render-error.js';

describe('renderError', () => {
  it('renders an AppError with its status, text and headers', () => {
    const r = renderError(new AppError('rate_limited', undefined, { 'retry-after': '5' }));
    expect(r).toEqual({
      status: 429,
      body: { error: 'rate limit exceeded' },
      headers: { 'retry-after': '5' },
    });
  });

  it('turns a lost check-then-insert race (unique violation) into a 409, on both databases', () => {
    for (const code of ['23505', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']) {
      expect(renderError(Object.assign(new Error('dup'), { code }))).toEqual({
        status: 409,
        body: { error: 'conflict' },
        headers: {},
      });
    }
  });

  it('answers 503 for an unreachable database and a generic 500 that leaks nothing for a bug', () => {
    expect(renderError(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' })).status).toBe(
      503,
    );
    expect(renderError(new TypeError('secret detail'))).toEqual({
      status: 500,
      body: { error: 'internal error' },
      headers: {},
    });
  });
});
