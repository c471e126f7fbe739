import type { z } from 'zod';
import type { Access } from '../../policy.js';
import type { OperationContext } from '../operation.js';

/**
 * An operation only the portal offers (what the spec does "in the app": API keys, team,
 * brands and their sources). It runs through `executeOperation` like every other, so the
 * access bar and input validation are the same machinery; it is just not mounted on REST.
 */
export interface PortalOperation<I extends z.ZodType> {
  access: Access;
  input: I;
  handler: (ctx: OperationContext, input: z.output<I>) => Promise<unknown>;
}

export const definePortalOperation = <I extends z.ZodType>(op: PortalOperation<I>) => op;
