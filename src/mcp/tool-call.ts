import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { renderError } from '../http/render-error.js';
import { executeOperation, type Runnable } from '../operations/execute.js';
import type { Actor } from '../policy.js';

/** MCP tool results: the answer's JSON as text and as structured content. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/** A listed tool and what runs it. */
export type ToolEntry = Tool & { run: Runnable };

export function jsonSchema(s: z.ZodType, io: 'input' | 'output') {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest as Tool['inputSchema'];
}

/** A tool failure's structured content: the REST error body and the HTTP status. */
const TOOL_ERROR = {
  type: 'object',
  description: 'a refusal (isError: true)',
  properties: {
    error: { type: 'string', description: 'the error text REST answers' },
    status: { type: 'integer', description: 'the HTTP status REST answers' },
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

/** The text a signed-in user gets for a refusal that the API words for keys. */
const USER_FORBIDDEN = 'not allowed for your role or plan';

/**
 * Runs a tool exactly as REST runs an operation. A refusal is a tool result with
 * `isError: true`, the REST error body as text, and the HTTP status beside it.
 */
export async function callTool(
  app: AppContext,
  actor: Actor,
  tool: ToolEntry,
  args: Record<string, unknown> | undefined,
): Promise<ToolResult> {
  try {
    const { body } = await executeOperation(app, tool.run, actor, args ?? {}, 'mcp');
    return {
      content: [{ type: 'text', text: JSON.stringify(body) }],
      structuredContent: body as Record<string, unknown>,
    };
  } catch (e) {
    const userRefusal = actor.kind === 'user' && e instanceof AppError && e.code === 'forbidden';
    const { status, body } = renderError(
      userRefusal ? new AppError('forbidden', USER_FORBIDDEN) : e,
      app.log,
    );
    return {
      isError: true,
      content: [{ type: 'text', text: JSON.stringify(body) }],
      structuredContent: { ...body, status },
    };
  }
}
