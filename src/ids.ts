import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

/** A random identifier from an unambiguous lowercase alphabet (5 bits a character). */
export function randomId(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i]! & 31];
  return out;
}

export const newId = (prefix: string, length = 16) => `${prefix}_${randomId(length)}`;
