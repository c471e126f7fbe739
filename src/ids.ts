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

let lastMs = 0;
let counter = 0;

/**
 * An id that sorts by creation time: milliseconds and a per-process counter (so rows
 * written in the same millisecond keep their order), then randomness. Used where order
 * matters and timestamps tie, as in the audit trail.
 */
export function sortableId(prefix: string): string {
  const ms = Date.now();
  counter = ms === lastMs ? counter + 1 : 0;
  lastMs = ms;
  const time = ms.toString(32).padStart(9, '0');
  const seq = counter.toString(32).padStart(4, '0');
  return `${prefix}_${time}${seq}${randomId(8)}`;
}
