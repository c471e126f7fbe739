import { describedFor } from '../operations/access-text.js';
import { restOperations } from '../operations/index.js';
import type { Actor } from '../policy.js';
import {
  jsonSchema,
  outputSchema,
  type ToolEntry,
  toolAnnotations,
  untexted,
} from './tool-call.js';

/**
 * An operation's description names other operations by id (their REST operationIds);
 * among the v1_ tools, those are the v1_ tools of the same names.
 */
const OPERATION_ID = new RegExp(`\\b(${restOperations.map((op) => op.id).join('|')})\\b`, 'g');
const ownNames = (text: string) => text.replace(OPERATION_ID, 'v1_$1');

/**
 * The partner tools: one `v1_<operation>` per REST operation, from the same registry, so
 * the two can never disagree. Built once per process, for each kind of caller: a key
 * reads the REST operation's description and the bar a key must meet; a signed-in
 * person, the bar a person must meet, and where the operation is also one of their own
 * tools (get_story for v1_get_story), which of the two to use.
 */
function partnerToolsFor(kind: Actor['kind']): readonly ToolEntry[] {
  return restOperations.map((op) => {
    const route = `(REST: ${op.rest.method} ${op.rest.path})`;
    const own = kind === 'user' ? op.userTool?.name : undefined;
    const text = own
      ? `The same as ${own}, with REST's argument names (brand for brand_id) and answer; prefer ${own}.`
      : describedFor(ownNames(op.description ?? op.summary), op.access, kind);
    return {
      name: `v1_${op.id}`,
      title: op.summary,
      description: own ? text : `${text} ${route}`,
      inputSchema: own ? untexted(jsonSchema(op.input, 'input')) : jsonSchema(op.input, 'input'),
      // A person's twin of their own tool points to it; its answer is REST's (the OpenAPI
      // document has its schema), and leaving the schema out keeps the list short.
      ...(!own && { outputSchema: outputSchema(op.rest.tool?.output ?? op.output) }),
      annotations: toolAnnotations(op),
      operation: op,
      door: 'partner-tool',
    };
  });
}

/** The v1_ tools as a partner API key is offered them. */
export const partnerTools = partnerToolsFor('key');
/** The v1_ tools as a signed-in person on a plan with API access is offered them. */
export const peoplePartnerTools = partnerToolsFor('user');
