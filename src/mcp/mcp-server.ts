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
import { partnerTools, peoplePartnerTools } from './partner-tools.js';
import { callTool, type ToolEntry } from './tool-call.js';
import { userTools } from './user-tools.js';

/**
 * The tools a caller sees, computed once per process: a partner API key gets the v1_
 * tools, as the specification lists them; a signed-in person gets the user tools, plus
 * the v1_ tools when the account is on a plan with API access, each described for a
 * person, and only those their role and plan let them run (an owner-only tool is not
 * offered to a member). A tool left out of a list still answers a call by its name, with
 * the refusal's real reason.
 */
interface ToolSet {
  list: Omit<ToolEntry, 'operation' | 'door'>[];
  byName: Map<string, ToolEntry>;
}
const toolSet = (listed: readonly ToolEntry[], callable: readonly ToolEntry[]): ToolSet => ({
  list: listed.map(({ operation: _op, door: _door, ...tool }) => tool),
  byName: new Map(callable.map((t) => [t.name, t])),
});
const KEY_TOOLS = toolSet(partnerTools, partnerTools);
const PEOPLE_TOOLS = [...userTools, ...peoplePartnerTools];
/** Per plan and role: the lists a person may be offered (at most 4 × 3 of them). */
const peopleSets = new Map<string, ToolSet>();

export function toolsFor(actor: Actor): ToolSet {
  if (actor.kind === 'key') return KEY_TOOLS;
  const key = `${actor.plan}:${actor.role}`;
  let set = peopleSets.get(key);
  if (!set) {
    const offered = hasApiAccess(actor.plan) ? PEOPLE_TOOLS : userTools;
    set = toolSet(
      offered.filter((t) => mayRun(actor, t.operation)),
      offered,
    );
    peopleSets.set(key, set);
  }
  return set;
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
