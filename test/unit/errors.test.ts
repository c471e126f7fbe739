import { describe, expect, it } from 'vitest';
import { ReadNotRun } from '../../src/db/read-batch.js';
import { AppError, forbidden, pageError, restError, toolError } from '../../src/errors.js';

describe('restError', () => {
  it('renders an AppError with its status, text and headers', () => {
    const r = restError(new AppError('rate_limited', undefined, { 'retry-after': '5' }));
    expect(r).toEqual({
      status: 429,
      body: { error: 'rate limit exceeded' },
      headers: { 'retry-after': '5' },
    });
  });

  it('turns a lost check-then-insert race (unique violation) into a 409, on both databases', () => {
    for (const code of ['23505', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']) {
      expect(restError(Object.assign(new Error('dup'), { code }))).toEqual({
        status: 409,
        body: { error: 'conflict' },
        headers: {},
      });
    }
  });

  it('answers 503 for an unreachable database and a generic 500 that leaks nothing for a bug', () => {
    expect(restError(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' })).status).toBe(
      503,
    );
    // A hot read on PostgreSQL that, sent again and again, never ran, and the hot reads'
    // own client not connected within its timeout (postgres-lane.ts), in pg's words.
    expect(restError(new ReadNotRun(new Error('Connection terminated'), true)).status).toBe(503);
    expect(restError(new Error('timeout expired')).status).toBe(503);
    expect(restError(new TypeError('secret detail'))).toEqual({
      status: 500,
      body: { error: 'internal error' },
      headers: {},
    });
  });
});

describe('toolError', () => {
  it("is REST's body and status, with the bar not met in words for a 403", () => {
    expect(toolError(forbidden('needs the owner role'))).toEqual({
      error: "outside this key's brand scope",
      status: 403,
      reason: 'needs the owner role',
    });
    expect(toolError(new AppError('not_found'))).toEqual({ error: 'not found', status: 404 });
    expect(toolError(Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' }))).toEqual({
      error: 'service unavailable',
      status: 503,
    });
  });
});

describe('pageError', () => {
  it('speaks to a person: the reason of a refusal, plain words for the rest', () => {
    expect(pageError(forbidden('needs the owner or admin role'))).toMatchObject({
      status: 403,
      text: 'Not allowed: needs the owner or admin role.',
    });
    expect(pageError(new AppError('not_found')).text).toBe('Not found.');
    expect(pageError(new AppError('invalid', 'email: is required')).text).toBe(
      'Email: is required',
    );
  });

  it('maps driver failures as every audience does, and says nothing of a bug', () => {
    expect(pageError(Object.assign(new Error('dup'), { code: '23505' }))).toMatchObject({
      status: 409,
    });
    expect(pageError(Object.assign(new Error('gone'), { code: 'ECONNREFUSED' }))).toMatchObject({
      status: 503,
      text: 'The service is busy or down for a moment. Try again shortly.',
    });
    expect(pageError(new TypeError('secret detail'))).toMatchObject({
      status: 500,
      text: 'Something went wrong.',
    });
  });
});
