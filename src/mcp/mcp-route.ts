import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestParamsSchema,
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { z } from 'zod';
import { apiKeyLookup } from '../auth/api-keys.js';
import { authenticateKey, presentedKey } from '../auth/authenticate-key.js';
import type { AppContext } from '../context.js';
import { AppError, restError } from '../errors.js';
import { authenticateToken } from '../oauth/authenticate-token.js';
import { issuerOf, MCP_SCOPE } from '../oauth/provider.js';
import { type Actor, hasApiAccess } from '../policy.js';
import { partnerTools } from './partner-tools.js';
import { callTool, type ToolEntry } from './tool-call.js';
import { userTools } from './user-tools.js';

const SERVER_INFO = { name: 'stories', title: 'Stories', version: '1.0.0' };

/**
 * tools/call with its `arguments` unchecked at registration. The SDK parses a request
 * with the registered schema first, and a failure there is an InternalError (-32603);
 * its tools/call wrapper then checks the full schema and answers InvalidParams (-32602),
 * which is what `arguments` that are not an object (a string, an array) deserve.
 */
const ToolsCallRequest = CallToolRequestSchema.extend({
  params: CallToolRequestParamsSchema.extend({ arguments: z.unknown().optional() }),
});

/**
 * The tools a caller sees, computed once per process: a partner API key gets the v1_
 * tools only; a signed-in user gets the user tools, plus the v1_ tools when the account
 * is on a plan with API access.
 */
const listed = (tools: readonly ToolEntry[]) =>
  tools.map(({ operation: _op, door: _door, ...tool }) => tool);
const KEY_TOOLS = {
  list: listed(partnerTools),
  byName: new Map(partnerTools.map((t) => [t.name, t])),
};
const USER_TOOLS = { list: listed(userTools), byName: new Map(userTools.map((t) => [t.name, t])) };
const PARTNER_USER_TOOLS = {
  list: listed([...userTools, ...partnerTools]),
  byName: new Map([...userTools, ...partnerTools].map((t) => [t.name, t])),
};

function toolsFor(actor: Actor) {
  if (actor.kind === 'key') return KEY_TOOLS;
  return hasApiAccess(actor.plan) ? PARTNER_USER_TOOLS : USER_TOOLS;
}

/**
 * The SDK builds a JSON Schema validator (Ajv) for every Server it makes; one per process
 * is enough (measured: it was the largest cost of a tool call).
 */
const VALIDATOR = new AjvJsonSchemaValidator();

/**
 * The MCP server at /mcp: Streamable HTTP, stateless (any process answers any request),
 * JSON responses. The SDK's Server handles the protocol (initialize, version negotiation,
 * ping, errors) on a transport made per request; both are light, because the tool lists
 * are computed once per process and each call runs the operation registry directly.
 * Callers are signed-in users with an OAuth access token or partners with an API key.
 */
export function mountMcp(
  fastify: FastifyInstance,
  app: AppContext,
  getProvider: () => Promise<Provider>,
) {
  const allowedOrigin = new URL(app.config.baseUrl).origin;
  const challenge = `Bearer resource_metadata="${issuerOf(app)}/.well-known/oauth-protected-resource", scope="${MCP_SCOPE}"`;

  fastify.post('/mcp', async (req, reply) => {
    // DNS rebinding: a browser page of another origin must not reach a local server.
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== allowedOrigin) {
      return reply.code(403).send({ error: 'origin not allowed' });
    }
    let actor: Actor;
    try {
      const presented = presentedKey(req.headers);
      // API keys announce themselves by their format; any other bearer is an OAuth token.
      const isKey =
        presented !== undefined &&
        (req.headers['x-api-key'] !== undefined || apiKeyLookup(presented) !== null);
      if (presented === undefined) {
        throw new AppError('unauthenticated', 'sign in with OAuth or send a partner API key');
      }
      const auth = isKey
        ? await authenticateKey(app, presented, req.ip)
        : await authenticateToken(app, await getProvider(), presented, req.ip);
      actor = auth.actor;
      for (const [k, v] of Object.entries(auth.headers)) reply.raw.setHeader(k, v);
    } catch (e) {
      const r = restError(e, req.log);
      // RFC 6750 §3.1: a credential that was sent and refused is an invalid_token, so a
      // client refreshes or signs in again instead of retrying it.
      if (r.status === 401) {
        const sent = presentedKey(req.headers) !== undefined;
        reply.header('www-authenticate', sent ? `${challenge}, error="invalid_token"` : challenge);
      }
      return reply.code(r.status).headers(r.headers).send(r.body);
    }
    // MCP 2025-06-18 removed JSON-RPC batches, and a batch would run many calls on one
    // count of the key's window: refused whole, nothing in it run.
    if (Array.isArray(req.body)) {
      return reply.code(400).send({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: ErrorCode.InvalidRequest,
          message: 'batches are not supported: send one request per POST',
        },
      });
    }
    await serveMcp(app, actor, req, reply);
  });

  // Stateless: no server-initiated stream to open and no session to end.
  const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) =>
    reply.code(405).header('allow', 'POST').send({ error: 'method not allowed: /mcp takes POST' });
  fastify.get('/mcp', notAllowed);
  fastify.delete('/mcp', notAllowed);
}

/** Who answers, as MCP clients show it: the service's name, site and icon (spec 2025-11-25). */
const serverInfo = (app: AppContext) => {
  const base = issuerOf(app);
  return {
    ...SERVER_INFO,
    websiteUrl: base,
    icons: [{ src: `${base}/icon.svg`, mimeType: 'image/svg+xml', sizes: ['any'] }],
  };
};

/**
 * The server answers JSON only (enableJsonResponse), which a client accepting JSON, or
 * anything, takes; the SDK's transport asks every request to accept both JSON and event
 * streams, so such a request is told to it as accepting both.
 */
function acceptJson(raw: FastifyRequest['raw']) {
  const accept = raw.headers.accept;
  if (accept?.includes('text/event-stream')) return;
  if (accept !== undefined && !/application\/json|\*\/\*/.test(accept)) return;
  const both = 'application/json, text/event-stream';
  raw.headers.accept = both;
  let found = false;
  for (let i = 0; i < raw.rawHeaders.length; i += 2) {
    if (raw.rawHeaders[i]!.toLowerCase() === 'accept') {
      raw.rawHeaders[i + 1] = both;
      found = true;
    }
  }
  if (!found) raw.rawHeaders.push('Accept', both);
}

async function serveMcp(app: AppContext, actor: Actor, req: FastifyRequest, reply: FastifyReply) {
  const tools = toolsFor(actor);
  const server = new Server(serverInfo(app), {
    capabilities: { tools: { listChanged: false } },
    jsonSchemaValidator: VALIDATOR,
    instructions:
      actor.kind === 'key'
        ? 'Stories: brand-reputation stories with advisories. Start with v1_list_brands, then v1_list_stories and v1_get_story.'
        : 'Stories: brand-reputation stories with advisories. Start with list_brands, then list_stories and get_story.',
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.list }));
  server.setRequestHandler(ToolsCallRequest, async (request) => {
    // The SDK's tools/call wrapper has checked the full schema before this runs:
    // arguments are an object or absent.
    const { name, arguments: args } = request.params as {
      name: string;
      arguments?: Record<string, unknown>;
    };
    const tool = tools.byName.get(name);
    // A plain error with its code: McpError would prefix its text with the code again.
    if (!tool)
      throw Object.assign(new Error(`unknown tool: ${name}`), { code: ErrorCode.InvalidParams });
    return callTool(app, actor, tool, args);
  });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  reply.raw.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  acceptJson(req.raw);
  reply.hijack();
  await transport.handleRequest(req.raw, reply.raw, req.body);
}
