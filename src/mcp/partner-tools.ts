import { restOperations } from '../operations/index.js';
import { jsonSchema, outputSchema, type ToolEntry } from './tool-call.js';

/**
 * An operation's description names other operations by id (their REST operationIds);
 * among the v1_ tools, those are the v1_ tools of the same names.
 */
const OPERATION_ID = new RegExp(`\\b(${restOperations.map((op) => op.id).join('|')})\\b`, 'g');
const ownNames = (text: string) => text.replace(OPERATION_ID, 'v1_$1');

/**
 * The partner tools: one `v1_<operation>` per REST operation, from the same registry, so
 * the two can never disagree. Built once per process.
 */
export const partnerTools: readonly ToolEntry[] = restOperations.map((op) => {
  const hints = op.hints!;
  return {
    name: `v1_${op.id}`,
    title: op.summary,
    description: `${ownNames(op.description ?? op.summary)} (REST: ${op.rest.method} ${op.rest.path})`,
    inputSchema: jsonSchema(op.input, 'input'),
    outputSchema: outputSchema(op.rest.tool?.output ?? op.output),
    annotations: {
      title: op.summary,
      readOnlyHint: hints.readOnly,
      destructiveHint: hints.destructive,
      idempotentHint: hints.idempotent,
      openWorldHint: hints.openWorld,
    },
    operation: op,
    door: 'partner-tool',
  };
});
