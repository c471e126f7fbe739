import { describedFor } from '../operations/access-text.js';
import { userToolOperations } from '../operations/index.js';
import { jsonSchema, outputSchema, type ToolEntry, toolAnnotations } from './tool-call.js';

/**
 * The user-session tools of spec 4.3: the signed-in user acting within their own
 * permissions. Each is an operation of the registry bound to this door under the tool's
 * own names, so the rules and the handler are the operation's.
 */
export const userTools: readonly ToolEntry[] = userToolOperations.map((op) => {
  const tool = op.userTool!;
  return {
    name: tool.name,
    title: tool.title,
    description: describedFor(tool.description, op.access, 'user'),
    inputSchema: jsonSchema(tool.args ?? op.input, 'input'),
    outputSchema: outputSchema(tool.output ?? op.output),
    annotations: toolAnnotations(op),
    operation: op,
    door: 'user-tool',
  };
});
