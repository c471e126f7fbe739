import type { z } from 'zod';
import type { AppContext } from '../context.js';
import { invalid } from '../errors.js';
import { type Actor, checkAccess } from '../policy.js';
import type { Operation } from './operation.js';

export interface OperationResult {
  status: number;
  body: unknown;
}

/** What can be run: an operation, or an MCP user tool built the same way. */
export type Runnable = Pick<Operation, 'access' | 'input' | 'handler' | 'status' | 'tool'>;

/** The single path every front door takes: access bar, input validation, handler. */
export async function executeOperation(
  app: AppContext,
  op: Runnable,
  actor: Actor,
  rawInput: unknown,
  via: 'rest' | 'mcp' = 'rest',
): Promise<OperationResult> {
  checkAccess(actor, op.access);
  const parsed = op.input.safeParse(rawInput === undefined ? {} : rawInput);
  if (!parsed.success) throw invalid(describeIssue(parsed.error.issues[0]));
  // After validation: the parsed input holds only declared fields, so the walk is shallow.
  refuseNul(parsed.data);
  const handler = via === 'mcp' && op.tool ? op.tool.handler : op.handler;
  const body = await handler({ app, actor }, parsed.data);
  const status = typeof op.status === 'function' ? op.status(body as never) : (op.status ?? 200);
  return { status, body };
}

/** Inputs are flat; anything deeper than this is refused rather than walked. */
export const MAX_DEPTH = 32;

/**
 * The path of the first string holding a NUL character, or null. PostgreSQL cannot store
 * NUL in text, so such input is refused for every operation, on both databases alike.
 */
export function refuseNul(value: unknown, root = 'body'): void {
  const nul = pathOfNul(value);
  if (nul !== null) throw invalid(`${nul || root}: must not contain NUL characters`);
}

function pathOfNul(value: unknown, path = '', depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (depth > MAX_DEPTH) throw invalid(`${path || 'body'}: nested too deeply`);
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const found = pathOfNul(v, path ? `${path}.${k}` : k, depth + 1);
      if (found !== null) return found;
    }
  }
  return null;
}

/** `field: problem`, naming the field the way the caller wrote it. */
export function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return 'invalid request';
  const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
  if (issue.code === 'unrecognized_keys') {
    return `${field}: unknown property ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
  }
  if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) {
    return `${field}: is required`;
  }
  if (issue.code === 'invalid_type') return `${field}: must be ${article(issue.expected)}`;
  return `${field}: ${issue.message}`;
}

const article = (t: string) => (/^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`);
