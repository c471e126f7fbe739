import { operations } from '../operations/index.js';
import { jsonSchema, outputSchema, type ToolEntry } from './tool-call.js';

/**
 * The partner tools: one `v1_<operation>` per REST operation, from the same registry, so
 * the two can never disagree. Built once per process.
 */
export const partnerTools: readonly ToolEntry[] = operations.map((op) => ({
  name: `v1_${op.id}`,
  title: op.summary,
  description: `${op.description} (REST: ${op.method} ${op.path})`,
  inputSchema: jsonSchema(op.input, 'input'),
  outputSchema: outputSchema(op.tool?.output ?? op.output),
  annotations: {
    title: op.summary,
    readOnlyHint: op.hints.readOnly,
    destructiveHint: op.hints.destructive,
    // Reads and deletions can be repeated without changing more.
    idempotentHint: op.method !== 'POST',
    openWorldHint: op.hints.openWorld,
  },
  run: op,
}));
