import { z } from 'zod';
import type { AppContext } from '../context.js';
import { invalid } from '../errors.js';
import { type Actor, allows, checkAccess } from '../policy.js';
import { type Door, type Operation, ruleFor } from './operation.js';

export interface OperationResult<T = unknown> {
  status: number;
  body: T;
}

/**
 * The single path every front door takes: the rule of the caller's kind, input
 * validation, handler. `door` picks the operation's binding: a user tool reads its own
 * argument names and answers in its own shape, a partner tool may answer more than REST.
 */
export async function executeOperation<I extends z.ZodType, O extends z.ZodType>(
  app: AppContext,
  op: Operation<I, O, z.ZodType>,
  actor: Actor,
  rawInput: unknown,
  door: Door = 'rest',
): Promise<OperationResult<z.input<O>>> {
  checkAccess(actor, ruleFor(op.access, actor.kind));
  const raw = rawInput === undefined ? {} : rawInput;
  const tool = door === 'user-tool' ? op.userTool : undefined;
  const input = tool?.args ? tool.toInput!(parse(tool.args, raw)) : raw;
  const parsed = parse(op.input, input);
  const partner = door === 'partner-tool' ? op.rest?.tool : undefined;
  let body = (await (partner ?? op).handler({ app, actor }, parsed)) as z.input<O>;
  if (tool?.present) body = tool.present(body) as z.input<O>;
  if (CHECK_OUTPUT) checkOutput(op, door, body);
  return { status: successStatus(op, body), body };
}

/** Whether the actor passes the operation's rule: pages show a form only to who may use it. */
export const mayRun = (actor: Actor, op: Operation) =>
  allows(actor, ruleFor(op.access, actor.kind));

/** The status of a success: the REST binding's, or 200. */
export const successStatus = (op: Operation, body: unknown) =>
  op.rest?.statusOf?.(body) ?? op.rest?.status ?? 200;

function parse<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw invalid(describeIssue(parsed.error.issues[0]));
  // After validation: the parsed input holds only declared fields, so the walk is shallow.
  refuseNul(parsed.data);
  return parsed.data;
}

/**
 * Under test every answer of every door is checked against the schema it is published
 * with, so a handler drifting from its schema (and the types the portal reads from it)
 * fails the test that ran it. In production the schemas are trusted.
 */
const CHECK_OUTPUT = process.env.NODE_ENV === 'test';

function checkOutput(op: Operation, door: Door, body: unknown) {
  const schema =
    door === 'user-tool'
      ? (op.userTool?.output ?? op.output)
      : door === 'partner-tool'
        ? (op.rest?.tool?.output ?? op.output)
        : op.output;
  const r = schema.safeParse(body);
  if (!r.success) {
    throw new Error(`${op.id} (${door}) answered outside its schema: ${z.prettifyError(r.error)}`);
  }
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
