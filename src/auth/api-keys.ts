import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { randomId } from '../ids.js';

/**
 * Key format: `brs_<lookup>_<secret>`. The recognisable `brs_` prefix lets secret scanners
 * spot leaked keys; the 12-character lookup finds the row; the 256-bit secret is never
 * stored, only the SHA-256 of the whole key (a fast hash is right for high-entropy
 * secrets; passwords get argon2).
 */
const KEY_PATTERN = /^brs_([a-z2-9]{12})_([A-Za-z0-9_-]{43})$/;

export interface NewApiKey {
  key: string;
  lookup: string;
  secretHash: string;
}

export function generateApiKey(): NewApiKey {
  const lookup = randomId(12);
  const key = `brs_${lookup}_${randomBytes(32).toString('base64url')}`;
  return { key, lookup, secretHash: hashApiKey(key) };
}

/** The SHA-256 of the whole key, the one digest stored and compared. */
const keyDigest = (key: string) => hash('sha256', key, 'buffer');

export function hashApiKey(key: string): string {
  return keyDigest(key).toString('hex');
}

/** The lookup part of a well-formed key, or null. */
export function apiKeyLookup(key: string): string | null {
  return KEY_PATTERN.exec(key)?.[1] ?? null;
}

export function apiKeyMatches(key: string, storedHash: string): boolean {
  const a = keyDigest(key);
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
