import type { z } from 'zod';
import type { AppContext } from '../context.js';
import type { Access, Actor } from '../policy.js';

export interface OperationContext {
  app: AppContext;
  actor: Actor;
}

/** MCP tool annotations; every operation on MCP states all four (a test enforces it). */
export interface Hints {
  readOnly: boolean;
  destructive: boolean;
  /** Repeating the call with the same input changes nothing more. */
  idempotent: boolean;
  openWorld: boolean;
}

/**
 * Who may run an operation: one rule for every caller, or one per actor kind where the
 * specification gives people and keys different bars (apply: owners among people, owners
 * and admins among keys). Every door applies the rule of the caller's kind.
 */
export type Rule = Access | { user: Access; key: Access };

/** The rule for callers of this kind. */
export const ruleFor = (rule: Rule, kind: Actor['kind']): Access =>
  'user' in rule ? rule[kind] : rule;

/** The operation's REST route under /v1 (keys only). */
export interface RestBinding<O extends z.ZodType> {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** The success status when it is not 200 (202 for work that finishes in the background). */
  status?: number;
  /** The success status when it depends on what happened. */
  statusOf?(body: z.input<O>): number;
}

/**
 * The operation as a tool of the signed-in user's MCP session (spec 4.3), which names
 * arguments its own way (`brand_id`) and may answer in its own shape. The operation's
 * rule and handler stay the only ones: the tool only renames what goes in and comes out.
 */
export interface UserTool<I extends z.ZodType, O extends z.ZodType, A extends z.ZodType> {
  name: string;
  title: string;
  description: string;
  /** The tool's arguments; the operation's input when absent. */
  args?: A;
  toInput?(args: z.output<A>): z.input<I>;
  /** The tool's answer when it differs from the operation's output. */
  output?: z.ZodType;
  present?(body: z.input<O>): unknown;
}

/** The partner `v1_` tool where the spec makes it answer more than REST. */
export interface PartnerTool<I extends z.ZodType> {
  output: z.ZodType;
  handler(ctx: OperationContext, input: z.output<I>): Promise<unknown>;
}

/**
 * One operation of the service, defined once with the doors it is mounted on: REST under
 * /v1 (and the OpenAPI document), MCP (the partner `v1_` tool for every REST operation,
 * and a user-session tool), and the portal. Every door runs it through
 * `executeOperation`: the caller's rule, the input schema, the handler.
 */
export interface Operation<
  I extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
  A extends z.ZodType = z.ZodType,
> {
  /** Unique; the partner tool is `v1_<id>`. */
  id: string;
  summary: string;
  /** What a caller of REST or MCP reads; required there (a test enforces it). */
  description?: string;
  input: I;
  output: O;
  access: Rule;
  hints?: Hints;
  // Method syntax: the registry holds operations of every input and output type.
  handler(ctx: OperationContext, input: z.output<I>): Promise<z.input<O>>;
  rest?: RestBinding<O> & { tool?: PartnerTool<I> };
  userTool?: UserTool<I, O, A>;
  portal?: true;
}

/** Identity function: exists so the handler's types are inferred from the schemas. */
export function defineOperation<I extends z.ZodType, O extends z.ZodType, A extends z.ZodType = I>(
  op: Operation<I, O, A>,
): Operation<I, O, A> {
  return op;
}

/** The door a call came through: the adapters name themselves so the bindings apply. */
export type Door = 'rest' | 'partner-tool' | 'user-tool' | 'portal';

/** An operation bound to REST: its route is certain. */
export type RestOperation = Operation & { rest: RestBinding<z.ZodType> };
