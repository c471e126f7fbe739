import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateKey, presentedKey } from '../auth/authenticate-key.js';
import type { AppContext } from '../context.js';
import { renderError } from '../http/render-error.js';
import type { Actor } from '../policy.js';
import { callPartnerTool, isPartnerTool, partnerTools } from './partner-tools.js';

const SERVER_INFO = { name: 'stories', title: 'Stories', version: '1.0.0' };
/** tools/list without the registry's own fields, computed once. */
const LISTED = partnerTools.map(({ operation: _op, ...tool }) => tool);
/**
 * The SDK builds a JSON Schema validator (Ajv) for every Server it makes; one per process
 * is enough (measured: it was the largest cost of a tool call).
 */
const VALIDATOR = new AjvJsonSchemaValidator();

/**
 * The MCP server at /mcp: Streamable HTTP, stateless (any process answers any request),
 * JSON responses. The SDK's Server handles the protocol (initialize, version negotiation,
 * ping, errors) on a transport made per request; both are light, because the tool list is
 * computed once per process and each call runs the operation registry directly.
 */
export function mountMcp(fastify: FastifyInstance, app: AppContext) {
  const allowedOrigin = new URL(app.config.baseUrl).origin;

  fastify.post('/mcp', async (req, reply) => {
    // DNS rebinding: a browser page of another origin must not reach a local server.
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== allowedOrigin) {
      return reply.code(403).send({ error: 'origin not allowed' });
    }
    let actor: Actor;
    try {
      const auth = await authenticateKey(app, presentedKey(req.headers), req.ip);
      actor = auth.actor;
      for (const [k, v] of Object.entries(auth.headers)) reply.raw.setHeader(k, v);
    } catch (e) {
      const r = renderError(e, req.log);
      if (r.status === 401) reply.header('www-authenticate', 'Bearer');
      return reply.code(r.status).headers(r.headers).send(r.body);
    }
    await serveMcp(app, actor, req, reply);
  });

  // Stateless: no server-initiated stream to open and no session to end.
  const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) =>
    reply.code(405).header('allow', 'POST').send({ error: 'method not allowed: /mcp takes POST' });
  fastify.get('/mcp', notAllowed);
  fastify.delete('/mcp', notAllowed);
}

async function serveMcp(app: AppContext, actor: Actor, req: FastifyRequest, reply: FastifyReply) {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    jsonSchemaValidator: VALIDATOR,
    instructions:
      'Stories: brand-reputation stories with advisories. Start with v1_list_brands, then v1_list_stories and v1_get_story.',
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: LISTED }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    if (!isPartnerTool(name)) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name}`);
    return callPartnerTool(app, actor, name, args);
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
  reply.hijack();
  await transport.handleRequest(req.raw, reply.raw, req.body);
}
