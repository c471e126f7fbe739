import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { operations } from '../../src/operations/index.js';

describe('the operation registry', () => {
  it('has unique ids and unique method + path pairs', () => {
    expect(new Set(operations.map((o) => o.id)).size).toBe(operations.length);
    expect(new Set(operations.map((o) => `${o.method} ${o.path}`)).size).toBe(operations.length);
  });

  it.each(operations.map((o) => [o.id, o] as const))('%s is fully described', (_id, op) => {
    expect(op.path.startsWith('/v1/')).toBe(true);
    expect(op.summary.length).toBeGreaterThan(5);
    expect(op.description.length).toBeGreaterThan(20);
    for (const hint of ['readOnly', 'destructive', 'openWorld'] as const) {
      expect(typeof op.hints[hint]).toBe('boolean');
    }
    expect(op.hints.readOnly).toBe(op.method === 'GET');
    const schema = z.toJSONSchema(op.input, { io: 'input' }) as {
      properties?: Record<string, { description?: string }>;
    };
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      expect(prop.description, `${op.id}.${name} needs a description`).toBeTruthy();
    }
  });

  it('rejects unknown properties in every POST body', () => {
    for (const op of operations.filter((o) => o.method === 'POST')) {
      const r = op.input.safeParse({ surprise: true });
      expect(r.success).toBe(false);
    }
  });
});
