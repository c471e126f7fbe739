import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';

/**
 * Every tool fully described: a description, described parameters, an object output
 * schema, and all four hints. A person's twin of one of their own tools (v1_get_story
 * beside get_story) says so and which, and is described there: the tool it names must be
 * in the same list.
 */
export function expectFullyDescribed(tools: Tool[]) {
  const names = new Set(tools.map((t) => t.name));
  for (const t of tools) {
    expect(t.description!.length, t.name).toBeGreaterThan(20);
    const twinOf = /^The same as (\w+), with REST's argument names/.exec(t.description!)?.[1];
    if (twinOf) {
      expect(names.has(twinOf), `${t.name} points to ${twinOf}`).toBe(true);
    } else {
      expect(t.outputSchema?.type, t.name).toBe('object');
      for (const [name, prop] of Object.entries(t.inputSchema.properties ?? {})) {
        expect((prop as { description?: string }).description, `${t.name}.${name}`).toBeTruthy();
      }
    }
    for (const hint of [
      'readOnlyHint',
      'destructiveHint',
      'idempotentHint',
      'openWorldHint',
    ] as const) {
      expect(typeof t.annotations?.[hint], `${t.name}.${hint}`).toBe('boolean');
    }
    expectBoundedStrings(t.name, t.inputSchema);
  }
}

/** Every free-text string a tool takes states its length limit in the schema itself. */
function expectBoundedStrings(path: string, schema: any) {
  if (!schema || typeof schema !== 'object') return;
  if (schema.type === 'string' && !schema.enum && schema.const === undefined) {
    expect(schema.maxLength, `${path}: maxLength`).toBeGreaterThan(0);
  }
  for (const [k, v] of Object.entries(schema.properties ?? {}))
    expectBoundedStrings(`${path}.${k}`, v);
  if (schema.items) expectBoundedStrings(`${path}[]`, schema.items);
  for (const branch of schema.anyOf ?? []) expectBoundedStrings(path, branch);
}
