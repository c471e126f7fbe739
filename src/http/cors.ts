import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';

/**
 * Browsers reach /mcp and the OAuth endpoints from the service's own origin and from
 * CORS_ORIGINS (web-based MCP clients) only: a page of any other origin is refused
 * before anything runs (also DNS rebinding against a local server). Requests without an
 * Origin (desktop clients, servers) are not browsers' and pass.
 */
export function corsPolicy(app: AppContext) {
  const allowed = new Set([new URL(app.config.baseUrl).origin, ...app.config.corsOrigins]);

  /**
   * Checks the request's origin. A refused one is answered 403 (true returned); an
   * allowed one gets its CORS answer: a preflight is answered 204 here (true returned),
   * any other request carries Access-Control-Allow-Origin (false: go on).
   */
  return function guard(req: FastifyRequest, reply: FastifyReply, methods: string): boolean {
    const origin = req.headers.origin;
    if (origin === undefined) return false;
    reply.raw.setHeader('vary', 'Origin');
    if (!allowed.has(origin)) {
      reply.code(403).send({ error: 'origin not allowed' });
      return true;
    }
    reply.raw.setHeader('access-control-allow-origin', origin);
    reply.raw.setHeader('access-control-expose-headers', EXPOSED);
    if (req.method !== 'OPTIONS') return false;
    reply
      .code(204)
      .header('access-control-allow-methods', methods)
      .header('access-control-allow-headers', ALLOWED_HEADERS)
      .header('access-control-max-age', '3600')
      .send();
    return true;
  };
}

/** What a browser client sends: credentials, and the MCP protocol's own headers. */
const ALLOWED_HEADERS =
  'authorization, content-type, x-api-key, mcp-protocol-version, mcp-method, mcp-name';
/** What it must read: the challenge that starts sign-in, and the rate window. */
const EXPOSED =
  'www-authenticate, ratelimit-limit, ratelimit-remaining, ratelimit-reset, retry-after';
