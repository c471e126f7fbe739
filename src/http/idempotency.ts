import { hash } from 'node:crypto';
import { invalid } from '../errors.js';
import { MAX_DEPTH } from '../operations/execute.js';

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export function validIdempotencyKey(key: string): string {
  if (!KEY_PATTERN.test(key)) {
    throw invalid('Idempotency-Key: must be 1 to 255 visible ASCII characters');
  }
  return key;
}

/** What makes two requests "the same": method, route and the JSON body with sorted keys. */
export function fingerprint(method: string, path: string, body: unknown): string {
  return hash('sha256', `${method} ${path}\n${stableJson(body ?? null)}`, 'hex');
}

function stableJson(v: unknown, depth = 0): string {
  if (depth > MAX_DEPTH) throw invalid('body: nested too deeply');
  if (Array.isArray(v)) return `[${v.map((x) => stableJson(x, depth + 1)).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${stableJson(x, depth + 1)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}
