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

/** A listed tool and the operation it runs, through which door. */
export type ToolEntry = Tool & { operation: Operation; door: Extract<Door, `${string}-tool`> };

export function jsonSchema(s: z.ZodType, io: 'input' | 'output') {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return singleTyped(rest) as Tool['inputSchema'];
}

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

/** A tool failure's structured content: the REST error body and the HTTP status. */
const TOOL_ERROR = {
  type: 'object',
  description: 'a refusal (isError: true)',
  properties: {
    error: { type: 'string', description: 'the error text REST answers' },
    status: { type: 'integer', description: 'the HTTP status REST answers' },
    reason: {
      type: 'string',
      description: 'for a 403: which bar was not met (role, plan, scope), in words',
    },
  },
  required: ['error', 'status'],
  additionalProperties: false,
};

/**
 * A tool's output schema: its answer, or the refusal. Failures carry structured content
 * too (CONTRACT.md), and MCP clients check every structured result against the schema.
 */
export function outputSchema(s: z.ZodType): Tool['outputSchema'] {
  return { type: 'object', anyOf: [jsonSchema(s, 'output'), TOOL_ERROR] };
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
