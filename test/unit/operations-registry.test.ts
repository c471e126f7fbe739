import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { operations, restOperations, userToolOperations } from '../../src/operations/index.js';
import { ruleFor } from '../../src/operations/operation.js';

const published = operations.filter((o) => o.rest || o.userTool);

describe('the operation registry', () => {
  it('has unique ids, routes and tool names', () => {
    const unique = (xs: string[]) => new Set(xs).size === xs.length;
    expect(unique(operations.map((o) => o.id))).toBe(true);
    expect(unique(restOperations.map((o) => `${o.rest.method} ${o.rest.path}`))).toBe(true);
    expect(unique(userToolOperations.map((o) => o.userTool!.name))).toBe(true);
  });

  it('mounts every operation on at least one door', () => {
    for (const op of operations) {
      expect(op.rest || op.userTool || op.portal, `${op.id} is on no door`).toBeTruthy();
    }
  });

  it.each(published.map((o) => [o.id, o] as const))('%s is fully described', (_id, op) => {
    if (op.rest) expect(op.rest.path.startsWith('/v1/')).toBe(true);
    expect(op.summary.length).toBeGreaterThan(5);
    if (op.rest) expect(op.description?.length ?? 0).toBeGreaterThan(20);
    if (op.userTool) expect(op.userTool.description.length).toBeGreaterThan(20);
    for (const hint of ['readOnly', 'destructive', 'idempotent', 'openWorld'] as const) {
      expect(typeof op.hints?.[hint], `${op.id}.hints.${hint}`).toBe('boolean');
    }
    if (op.rest) expect(op.hints!.readOnly).toBe(op.rest.method === 'GET');
    for (const input of [op.input, op.userTool?.args]) {
      if (!input) continue;
      const schema = z.toJSONSchema(input, { io: 'input' }) as {
        properties?: Record<string, { description?: string }>;
      };
      for (const [name, prop] of Object.entries(schema.properties ?? {})) {
        expect(prop.description, `${op.id}.${name} needs a description`).toBeTruthy();
      }
    }
  });

  it('gives a user tool with its own argument names the way to the operation input', () => {
    for (const op of userToolOperations) {
      expect(Boolean(op.userTool!.args)).toBe(Boolean(op.userTool!.toInput));
      expect(Boolean(op.userTool!.output)).toBe(Boolean(op.userTool!.present));
    }
  });

  it('states a rule per actor kind only where the two differ', () => {
    for (const op of operations) {
      if (!('user' in op.access)) continue;
      expect(ruleFor(op.access, 'user')).not.toEqual(ruleFor(op.access, 'key'));
    }
  });

  it('rejects unknown properties in every POST body and every tool argument list', () => {
    for (const op of restOperations.filter((o) => o.rest.method === 'POST')) {
      expect(op.input.safeParse({ surprise: true }).success).toBe(false);
    }
    for (const op of userToolOperations) {
      const args = op.userTool!.args ?? op.input;
      expect(args.safeParse({ surprise: true }).success).toBe(false);
    }
  });
});
