import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { toolError } from '../errors.js';
import { executeOperation } from '../operations/execute.js';
import type { Door, Operation } from '../operations/operation.js';
import type { Actor } from '../policy.js';

/** MCP tool results: the answer's JSON as text and as structured content. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/** MCP's four hints of an operation (every operation on MCP states them: a test enforces it). */
export function toolAnnotations(op: Operation): NonNullable<Tool['annotations']> {
  const hints = op.hints!;
  return {
    readOnlyHint: hints.readOnly,
    destructiveHint: hints.destructive,
    idempotentHint: hints.idempotent,
    openWorldHint: hints.openWorld,
  };
}

/** A listed tool and the operation it runs, through which door. */
export type ToolEntry = Tool & { operation: Operation; door: Extract<Door, `${string}-tool`> };

/**
 * A pattern this long (a host's, an email's: a hundred characters, in 28 tools) tells an
 * agent less than the description beside it; the operation checks it on every call.
 */
const LONGEST_PATTERN = 60;

export function jsonSchema(s: z.ZodType, io: 'input' | 'output') {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, {
    io,
    unrepresentable: 'any',
    // An output's shapes used twice (a story's advisory and its pending proposal) are
    // written once, under $defs.
    ...(io === 'output' && { reused: 'ref' as const }),
    override: ({ jsonSchema }) => {
      if (typeof jsonSchema.pattern === 'string' && jsonSchema.pattern.length > LONGEST_PATTERN) {
        delete jsonSchema.pattern;
      }
    },
  }) as Record<string, unknown>;
  return singleTyped(rest) as Tool['inputSchema'];
}

/** A schema's keyword that is a text (not a field named `description`, whose value is a schema). */
const isText = (k: string, v: unknown) => k === 'description' && typeof v === 'string';

/**
 * What only an input needs: zod's bounds of every integer, lengths, patterns and "no other
 * fields". An answer's reader needs its fields' names and types, and texts neither: they
 * were half of a tool list's size.
 */
const isInputOnly = (k: string, v: unknown) =>
  isText(k, v) ||
  ((k === 'minimum' || k === 'maximum') && Math.abs(v as number) === Number.MAX_SAFE_INTEGER) ||
  (k === 'additionalProperties' && v === false) ||
  ((k === 'minLength' || k === 'maxLength' || k === 'pattern') && typeof v !== 'object');

/** The schema without the keywords `drop` names, at every depth (`const` values kept whole). */
function without(node: unknown, drop: (k: string, v: unknown) => boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => without(n, drop));
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (drop(k, v)) continue;
    out[k] = k === 'const' ? v : without(v, drop);
  }
  return out;
}

/** A twin tool's input: the same fields as its own tool's, whose texts say what they are. */
export const untexted = (schema: Tool['inputSchema']) =>
  without(schema, isText) as Tool['inputSchema'];

/**
 * The schema with every `type: [T, "null"]` written as `anyOf: [{type: T}, {type:
 * "null"}]`: the same contract, in the spelling clients that map tool schemas onto a
 * single-`type` dialect (Gemini's function declarations, among others) accept. MCP
 * Inspector's --strict mode checks for it.
 */
function singleTyped(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(singleTyped);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === 'const' ? v : singleTyped(v);
  const { type, description, ...rest } = out;
  if (!Array.isArray(type)) return out;
  const branches = type.map((t) => (t === 'null' ? { type: 'null' } : { type: t, ...rest }));
  return description === undefined ? { anyOf: branches } : { description, anyOf: branches };
}

/**
 * A tool failure's structured content: `{error, status}` and, for a 403, `reason`
 * (docs/api.md, MCP). The branch every output schema shares, as short as it can be: it is
 * written once per tool, and the tool list is read by every agent on every connection.
 */
const TOOL_ERROR = { type: 'object', required: ['error', 'status'] };

/**
 * A tool's output schema: its answer, or the refusal. Failures carry structured content
 * too (CONTRACT.md), and MCP clients check every structured result against the schema
 * (the 1.x SDK also a refusal's). The answer's $defs move to the top, where its $refs
 * (`#/$defs/…`) point.
 */
export function outputSchema(s: z.ZodType): Tool['outputSchema'] {
  const { $defs, ...answer } = without(jsonSchema(s, 'output'), isInputOnly) as Record<
    string,
    unknown
  >;
  const defs = inlineSmall(($defs ?? {}) as Record<string, unknown>);
  const body = defs.resolve(answer);
  const kept = defs.kept();
  return {
    type: 'object',
    ...(Object.keys(kept).length > 0 && { $defs: kept }),
    anyOf: [body, TOOL_ERROR],
  };
}

/** A $ref costs more than the definition it names when that is this short: written in place. */
const INLINE_BELOW = 80;

/** The $defs of an output schema: the short ones written in place, the rest kept. */
function inlineSmall(defs: Record<string, unknown>) {
  const name = (ref: unknown) =>
    typeof ref === 'string' && ref.startsWith('#/$defs/') ? ref.slice(8) : undefined;
  const small = (n: string) => JSON.stringify(defs[n]).length < INLINE_BELOW;
  const resolve = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(resolve);
    if (node === null || typeof node !== 'object') return node;
    const n = name((node as { $ref?: unknown }).$ref);
    if (n !== undefined && n in defs && small(n)) return resolve(defs[n]);
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolve(v)]));
  };
  return {
    resolve,
    kept: () =>
      Object.fromEntries(
        Object.keys(defs)
          .filter((n) => !small(n))
          .map((n) => [n, resolve(defs[n])]),
      ),
  };
}

/**
 * Runs a tool exactly as REST runs an operation. A refusal is a tool result with
 * `isError: true` whose structured content, and text, are the REST error body with the
 * HTTP status beside it; a 403 also says why in `reason`, since its `error` text is the
 * one spec 7 fixes for every door.
 */
export async function callTool(
  app: AppContext,
  actor: Actor,
  tool: ToolEntry,
  args: Record<string, unknown> | undefined,
): Promise<ToolResult> {
  try {
    const { body } = await executeOperation(app, tool.operation, actor, args ?? {}, tool.door);
    return {
      content: [{ type: 'text', text: JSON.stringify(body) }],
      structuredContent: body as Record<string, unknown>,
    };
  } catch (e) {
    const refusal = toolError(e, app.log);
    // The text is the whole structured content, as MCP advises: most hosts show the model
    // only the text, and a 403's `error` is spec 7's fixed text; its `reason` is the truth.
    // In the order the SDK writes a result's members (plain-tool-call.ts writes it as is).
    return {
      content: [{ type: 'text', text: JSON.stringify(refusal) }],
      structuredContent: refusal,
      isError: true,
    };
  }
}
