import type { z } from 'zod';
import type { AppContext } from '../context.js';
import type { Access, Actor } from '../policy.js';

export interface OperationContext {
  app: AppContext;
  actor: Actor;
}

/** MCP tool annotations; every operation states all three (a test enforces it). */
export interface Hints {
  readOnly: boolean;
  destructive: boolean;
  openWorld: boolean;
}

/**
 * One operation of the service, defined once: REST mounts it under /v1, the OpenAPI
 * document and MCP tool descriptions come from its schemas, and every front door runs it
 * through `executeOperation`.
 */
export interface Operation<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  id: string;
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  summary: string;
  description: string;
  input: I;
  output: O;
  access: Access;
  hints: Hints;
  /**
   * The success status when it is not 200 (202 for work that finishes in the background),
   * or how to tell it from the answer when it depends on what happened.
   */
  status?: number | ((body: z.input<O>) => number);
  handler: (ctx: OperationContext, input: z.output<I>) => Promise<z.input<O>>;
  /**
   * Where the specification makes the `v1_` MCP tool answer more than REST (the rows of
   * v1_list_stories carry the working state): its own output and handler, same input.
   */
  tool?: {
    output: z.ZodType;
    handler: (ctx: OperationContext, input: z.output<I>) => Promise<unknown>;
  };
}

/** Identity function: exists so the handler's types are inferred from the schemas. */
export function defineOperation<I extends z.ZodType, O extends z.ZodType>(
  op: Operation<I, O>,
): Operation<I, O> {
  return op;
}
