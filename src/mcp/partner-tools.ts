import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { renderError } from '../http/render-error.js';
import { executeOperation } from '../operations/execute.js';
import { operations } from '../operations/index.js';
import type { Operation } from '../operations/operation.js';
import type { Actor } from '../policy.js';

/** MCP tool results: the REST answer's JSON as text and as structured content. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

const jsonSchema = (s: z.ZodType, io: 'input' | 'output') => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest as Tool['inputSchema'];
};

/**
 * The partner tools: one `v1_<operation>` per REST operation, from the same registry, so
 * the two can never disagree. Built once per process: tools/list answers this array.
 */
export const partnerTools: readonly (Tool & { operation: Operation })[] = operations.map((op) => ({
  name: `v1_${op.id}`,
  title: op.summary,
  description: `${op.description} (REST: ${op.method} ${op.path})`,
  inputSchema: jsonSchema(op.input, 'input'),
  outputSchema: jsonSchema(op.tool?.output ?? op.output, 'output'),
  annotations: {
    title: op.summary,
    readOnlyHint: op.hints.readOnly,
    destructiveHint: op.hints.destructive,
    // Reads and deletions can be repeated without changing more.
    idempotentHint: op.method !== 'POST',
    openWorldHint: op.hints.openWorld,
  },
  operation: op,
}));

const byName = new Map(partnerTools.map((t) => [t.name, t]));

export const isPartnerTool = (name: string) => byName.has(name);

/**
 * Runs a partner tool exactly as REST runs its operation. A refusal is a tool result
 * with `isError: true`, the REST error body as text, and the HTTP status beside it.
 */
export async function callPartnerTool(
  app: AppContext,
  actor: Actor,
  name: string,
  args: Record<string, unknown> | undefined,
): Promise<ToolResult> {
  const tool = byName.get(name)!;
  try {
    const { body } = await executeOperation(app, tool.operation, actor, args ?? {}, 'mcp');
    return {
      content: [{ type: 'text', text: JSON.stringify(body) }],
      structuredContent: body as Record<string, unknown>,
    };
  } catch (e) {
    // Rendered exactly as REST renders it: same status, same body.
    const { status, body } = renderError(e, app.log);
    return {
      isError: true,
      content: [{ type: 'text', text: JSON.stringify(body) }],
      structuredContent: { ...body, status },
    };
  }
}
