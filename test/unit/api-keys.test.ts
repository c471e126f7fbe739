import { describe, expect, it } from 'vitest';
import {
  apiKeyLookup,
  apiKeyMatches,
  generateApiKey,
  hashApiKey,
} from '../../src/auth/api-keys.js';

describe('API keys', () => {
  it('have a recognisable prefix, a lookup part and a 256-bit secret', () => {
    const k = generateApiKey();
    expect(k.key).toMatch(/^brs_[a-z2-9]{12}_[A-Za-z0-9_-]{43}$/);
    expect(apiKeyLookup(k.key)).toBe(k.lookup);
    expect(Buffer.from(k.key.slice(17), 'base64url')).toHaveLength(32);
  });

  it('are unique', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey().key));
    expect(keys.size).toBe(1000);
  });

  it('match only their own hash', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(apiKeyMatches(a.key, a.secretHash)).toBe(true);
    expect(apiKeyMatches(b.key, a.secretHash)).toBe(false);
    expect(apiKeyMatches(a.key, 'short')).toBe(false);
    expect(a.secretHash).toBe(hashApiKey(a.key));
    expect(a.secretHash).not.toContain(a.key.slice(17));
  });

  it('are stored as the SHA-256 of the whole key, so keys issued earlier still match', () => {
    // A known answer (sha256sum of the key's bytes): a change of digest or encoding would
    // void every key in every database.
    const key = `brs_abcdefghjkmn_${'A'.repeat(43)}`;
    const stored = '792264d554966e218c0bfef856df52bb0050c31c165d593e3690abb7c9f53a69';
    expect(hashApiKey(key)).toBe(stored);
    expect(apiKeyMatches(key, stored)).toBe(true);
    expect(apiKeyMatches(`${key.slice(0, -1)}B`, stored)).toBe(false);
  });

  it('refuse malformed input before any lookup', () => {
    for (const s of [
      '',
      'brs_',
      'brs_ABCDEFGHIJKL_x',
      `sk_live_${'a'.repeat(40)}`,
      `brs_aaaaaaaaaaaa_${'a'.repeat(42)}`,
    ]) {
      expect(apiKeyLookup(s)).toBeNull();
    }
  });
});
