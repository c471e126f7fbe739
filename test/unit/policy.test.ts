import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { type Actor, checkAccess } from '../../src/policy.js';

const key = (role: Actor['role'], scope: string[] | null = null): Actor => ({
  kind: 'key',
  keyId: 'key_x',
  accountId: 'acc_x',
  plan: 'partner',
  role,
  scope,
});

const refused = (fn: () => void) => {
  try {
    fn();
    return null;
  } catch (e) {
    return e instanceof AppError ? `${e.status} ${e.message}` : String(e);
  }
};

describe('checkAccess: the bars an operation sets before reading its input', () => {
  it.each([
    ['member', 'admin', "403 outside this key's brand scope"],
    ['admin', 'admin', null],
    ['owner', 'admin', null],
    ['admin', 'owner', "403 outside this key's brand scope"],
    ['member', 'member', null],
  ] as const)('a %s against minRole %s', (role, minRole, expected) => {
    expect(refused(() => checkAccess(key(role), { minRole }))).toBe(expected);
  });

  it('fullScope refuses a brand-scoped key, even an owner', () => {
    expect(refused(() => checkAccess(key('owner', ['acme.com']), { fullScope: true }))).toBe(
      "403 outside this key's brand scope",
    );
    expect(refused(() => checkAccess(key('member'), { fullScope: true }))).toBeNull();
  });

  it('never refuses everyone', () => {
    expect(refused(() => checkAccess(key('owner'), { never: true }))).toBe(
      "403 outside this key's brand scope",
    );
  });
});
