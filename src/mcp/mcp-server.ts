import {
  type CallToolRequest,
  ProtocolError,
  ProtocolErrorCode,
  Server,
} from '@modelcontextprotocol/server';
import type { AppContext } from '../context.js';
import { issuerOf } from '../oauth/provider.js';
import { mayRun } from '../operations/execute.js';
import { type Actor, hasApiAccess } from '../policy.js';
import { partnerTools } from './partner-tools.js';
import { callTool, type ToolEntry } from './tool-call.js';
import { userTools } from './user-tools.js';

/**
 * The tools a caller sees, computed once per process: a partner API key gets the v1_
 * tools only; a signed-in user gets the user tools, plus the v1_ tools when the account
 * is on a plan with API access.
 */
const toolSet = (tools: readonly ToolEntry[]) => ({
  list: tools.map(({ operation: _op, door: _door, ...tool }) => tool),
  byName: new Map(tools.map((t) => [t.name, t])),
});
const KEY_TOOLS = toolSet(partnerTools);
const USER_TOOLS = toolSet(userTools);
const PARTNER_USER_TOOLS = toolSet([...userTools, ...partnerTools]);

export function toolsFor(actor: Actor) {
  if (actor.kind === 'key') return KEY_TOOLS;
  return hasApiAccess(actor.plan) ? PARTNER_USER_TOOLS : USER_TOOLS;
}

/**
 * What an OAuth client signed in as this member may do, tool by tool: the consent page
 * lists exactly these. A tool the member's role or plan does not allow is left out.
 */
export function powersOf(actor: Actor) {
  return [...toolsFor(actor).byName.values()]
    .filter((tool) => mayRun(actor, tool.operation))
    .map((tool) => ({
      name: tool.name,
      title: tool.title ?? tool.name,
      changes: tool.annotations?.readOnlyHint !== true,
      destructive: tool.annotations?.destructiveHint === true,
    }));
}

const INSTRUCTIONS = {
  key: 'Stories: brand-reputation stories with advisories. Start with v1_list_brands, then v1_list_stories and v1_get_story.',
  user: 'Stories: brand-reputation stories with advisories. Start with list_brands, then list_stories and get_story.',
};

/** Who answers, as MCP clients show it: the service's name, site and icon. */
export function serverInfo(app: AppContext) {
  const base = issuerOf(app);
  return {
    name: 'stories',
    title: 'Stories',
    version: '1.0.0',
    websiteUrl: base,
    icons: [{ src: `${base}/icon.svg`, mimeType: 'image/svg+xml', sizes: ['any'] }],
  };
}

/**
 * The MCP server for one request of one caller, on either protocol era: tools/list and
 * tools/call over the operation registry. The SDK answers the rest (initialize or
 * server/discover, ping, version checks, malformed params as -32602).
 *
 * The low-level Server rather than McpServer: the tool lists and their JSON Schemas are
 * built once per process from the registry, and the registry validates arguments itself
 * (a refusal is a tool result with the REST error, as on every door), so registering 53
 * tools with their zod schemas on every request would only repeat that work.
 */
export function mcpServerFor(app: AppContext, actor: Actor, info: ReturnType<typeof serverInfo>) {
  const tools = toolsFor(actor);
  const server = new Server(info, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS[actor.kind === 'key' ? 'key' : 'user'],
  });
  server.setRequestHandler('tools/list', async () => ({ tools: tools.list }));
  server.setRequestHandler('tools/call', async (request: CallToolRequest) => {
    const { name, arguments: args } = request.params;
    const tool = tools.byName.get(name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool: ${name}`);
    const result = await callTool(app, actor, tool, args);
    return server.projectCallToolResult(result, tool.outputSchema);
  });
  return server;
}
