import type { IncomingHttpHeaders } from 'node:http';
import {
  createMcpHandler,
  isLegacyRequest,
  ProtocolErrorCode,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { apiKeyLookup } from '../auth/api-keys.js';
import { authenticateKey, presentedKey } from '../auth/authenticate-key.js';
import type { AppContext } from '../context.js';
import { AppError, restError } from '../errors.js';
import { corsPolicy } from '../http/cors.js';
import { authenticateToken } from '../oauth/authenticate-token.js';
import { issuerOf, MCP_SCOPE } from '../oauth/provider.js';
import type { Actor } from '../policy.js';
import { mcpServerFor, serverInfo, toolsFor } from './mcp-server.js';
import { plainCallAnswers, plainToolCall } from './plain-tool-call.js';

/**
 * The MCP server at /mcp, Streamable HTTP, stateless (any process answers any request),
 * JSON answers, on both protocol eras:
 *
 * - 2026-07-28 (modern): every request carries its version and client capabilities in
 *   `_meta`; the SDK's createMcpHandler serves it (server/discover, the new headers,
 *   `resultType`).
 * - 2025-11-25 and older (legacy): initialize, then one POST per request; served by the
 *   SDK's streamable transport, made per request, answering JSON.
 *
 * Both build the same server for the caller (mcp-server.ts). Callers are signed-in users
 * with an OAuth access token or partners with an API key, authenticated here first. A
 * tool call in the plain shape the SDK's clients send is answered without the SDK, as it
 * would answer it (plain-tool-call.ts).
 */
export function mountMcp(
  fastify: FastifyInstance,
  app: AppContext,
  getProvider: () => Promise<Provider>,
) {
  const cors = corsPolicy(app);
  const challenge = `Bearer resource_metadata="${issuerOf(app)}/.well-known/oauth-protected-resource", scope="${MCP_SCOPE}"`;
  const info = serverInfo(app);
  const sdk = sdkAnswers(app, info);
  const answerPlain = plainCallAnswers(app, info);

  // Browser-based clients: a preflight from an allowed origin, refused from any other.
  fastify.options('/mcp', async (req, reply) => {
    if (!cors(req, reply, 'POST')) reply.code(204).header('allow', 'POST, OPTIONS').send();
  });

  fastify.post('/mcp', async (req, reply) => {
    if (cors(req, reply, 'POST')) return;
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
        ? await authenticateKey(app, presented, req.ip, brandOfCall(req.body))
        : await authenticateToken(app, await getProvider(), presented, req.ip);
      actor = auth.actor;
      reply.headers(auth.headers);
    } catch (e) {
      const r = restError(e, req.log);
      // RFC 6750 §3.1: a credential that was sent and refused is an invalid_token, so a
      // client refreshes or signs in again instead of retrying it.
      if (r.status === 401) {
        const sent = presentedKey(req.headers) !== undefined;
        reply.header('www-authenticate', sent ? `${challenge}, error="invalid_token"` : challenge);
      }
      const body = r.status === 429 ? rateLimitedRpc(req.body, r.headers['retry-after']) : r.body;
      return reply.code(r.status).headers(r.headers).send(body);
    }
    // MCP 2025-06-18 removed JSON-RPC batches, and a batch would run many calls on one
    // count of the key's window: refused whole, nothing in it run.
    if (Array.isArray(req.body)) {
      return reply.code(400).send({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: ProtocolErrorCode.InvalidRequest,
          message: 'batches are not supported: send one request per POST',
        },
      });
    }
    const call = plainToolCall(req.headers, req.body, toolsFor(actor));
    if (call) {
      // A buffer, which Fastify sends as it is: the SDK's type has no charset parameter.
      const answer = Buffer.from(await answerPlain(actor, call));
      return reply.type('application/json').send(answer);
    }
    return sendResponse(reply, await sdk.answer(actor, req.headers, req.url, req.body));
  });

  // Stateless: no server-initiated stream to open and no session to end.
  const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) =>
    reply.code(405).header('allow', 'POST').send({ error: 'method not allowed: /mcp takes POST' });
  fastify.get('/mcp', notAllowed);
  fastify.delete('/mcp', notAllowed);
  fastify.addHook('onClose', async () => sdk.close());
}

/**
 * The SDK's answer to an authenticated caller's POST /mcp, on either era: every request
 * but the plain tool calls plain-tool-call.ts answers.
 */
export function sdkAnswers(app: AppContext, info: ReturnType<typeof serverInfo>) {
  const onerror = (error: Error) => app.log?.debug({ err: error }, 'mcp: request refused');
  const modern = createMcpHandler(
    ({ authInfo }) => mcpServerFor(app, actorOf(authInfo?.extra), info),
    { legacy: 'reject', onerror },
  );
  return {
    async answer(actor: Actor, headers: IncomingHttpHeaders, url: string, body: unknown) {
      const request = webRequest(headers, url);
      const options = { parsedBody: body, authInfo: authInfoOf(actor) };
      return (await isLegacyRequest(request, body))
        ? serveLegacy(mcpServerFor(app, actor, info), request, options)
        : modern.fetch(request, options);
    },
    close: () => modern.close(),
  };
}

/**
 * A 429 on /mcp keeps its status and Retry-After, and says the wait in a JSON-RPC error for
 * the request's id: clients that hide the HTTP status and headers behind an exception
 * (the SDK's 2.x client puts the body's text in its message) still tell the agent how long
 * to back off.
 */
function rateLimitedRpc(body: unknown, retryAfter: string | undefined) {
  const id = (body as { id?: unknown } | null)?.id;
  const seconds = Number(retryAfter) || 1;
  return {
    jsonrpc: '2.0',
    id: typeof id === 'string' || Number.isSafeInteger(id) ? id : null,
    error: {
      // JSON-RPC's range for the server's own errors: MCP names no code for a rate limit.
      code: -32000,
      message: `rate limit exceeded: retry after ${seconds} second${seconds === 1 ? '' : 's'}`,
      data: { error: 'rate limit exceeded', status: 429, retry_after: seconds },
    },
  };
}

/** The brand a tool call names, read with the key (brandReadAhead in policy.ts). */
function brandOfCall(body: unknown): string | undefined {
  const call = body as { method?: unknown; params?: { arguments?: { brand?: unknown } } };
  const brand = call?.method === 'tools/call' ? call.params?.arguments?.brand : undefined;
  return typeof brand === 'string' ? brand : undefined;
}

/**
 * The SDK hands a request's `authInfo` to the server factory as given: it carries the
 * authenticated caller, checked here before the SDK sees the request.
 */
const authInfoOf = (actor: Actor) => ({
  token: '',
  clientId: actor.kind === 'key' ? actor.keyId : actor.userId,
  scopes: [],
  extra: { actor },
});
const actorOf = (extra: Record<string, unknown> | undefined) => {
  if (!extra?.actor) throw new Error('mcp: a request reached the server unauthenticated');
  return extra.actor as Actor;
};

/**
 * The Fetch-API request the SDK reads, from Fastify's (whose body is parsed already and
 * handed over beside it). The server answers JSON only, which a client accepting JSON, or
 * anything, takes; the SDK's legacy transport asks that a request accept both JSON and
 * event streams, so such a request is told to it as accepting both.
 */
function webRequest(incoming: IncomingHttpHeaders, url: string) {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    for (const v of [value].flat()) headers.append(name, v);
  }
  const accept = headers.get('accept');
  if (
    !accept?.includes('text/event-stream') &&
    (!accept || /application\/json|\*\/\*/.test(accept))
  ) {
    headers.set('accept', 'application/json, text/event-stream');
  }
  return new Request(new URL(url, 'http://mcp.invalid'), { method: 'POST', headers });
}

/** A 2025-era request: the SDK's streamable transport, stateless, made for this one request. */
async function serveLegacy(
  server: ReturnType<typeof mcpServerFor>,
  request: Request,
  options: { parsedBody: unknown; authInfo: ReturnType<typeof authInfoOf> },
) {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, options);
  } finally {
    await server.close();
  }
}

async function sendResponse(reply: FastifyReply, response: Response) {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    reply.header(name, value);
  });
  return reply.send(response.body === null ? '' : Buffer.from(await response.arrayBuffer()));
}
