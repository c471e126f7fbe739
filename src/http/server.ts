import { hostname } from 'node:os';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { ping } from '../db/database.js';
import { sweepExpiredOAuth } from '../db/oauth-store.js';
import { startBlueskyStream } from '../domain/bluesky-stream.js';
import { startConnectorScheduler } from '../domain/connector-schedule.js';
import { startDigestScheduler } from '../domain/digests.js';
import { startFeedScheduler } from '../domain/feeds.js';
import { sweepExpiredIdempotency } from '../domain/idempotency.js';
import { pruneFinished, pruneFound } from '../domain/retention.js';
import { restError } from '../errors.js';
import { jobDefinitions } from '../jobs/handlers.js';
import { mountMcp } from '../mcp/mcp-route.js';
import { mountOAuth } from '../oauth/oauth-routes.js';
import { lazyOAuthProvider } from '../oauth/provider.js';
import { restOperations } from '../operations/index.js';
import { html, PAGE_HEADERS, page } from '../web/html.js';
import { mountOnboarding } from '../web/onboarding-routes.js';
import { mountPortal } from '../web/portal/portal.js';
import { mountShares } from '../web/share-routes.js';
import { mountBilling } from './billing-routes.js';
import {
  clientErrorHandler,
  frameworkErrors,
  refuseConnect,
  refuseExpectation,
  requireHost,
} from './client-errors.js';
import { buildOpenApi } from './openapi.js';
import { mountRest } from './rest-adapter.js';
import { isDraining, trackHandlers } from './shutdown.js';

/**
 * The path segment after each of these prefixes is a secret (a token that is the key to
 * an account, a share or a purchase); the query string may hold tokens too.
 */
const SECRET_PATHS =
  /^(\/(?:onboard\/confirm|onboard|action|s|reset|signup\/confirm|verify-brand|oauth\/interaction|billing\/checkout))\/[^/?]+/;
/** A share's guest link holds a second one. */
const GUEST_LINK = /^(\/s\/…\/g)\/[^/?]+/;

export function redactUrl(url: string): string {
  const path = url.split('?')[0]!.replace(SECRET_PATHS, '$1/…').replace(GUEST_LINK, '$1/…');
  return url.includes('?') ? `${path}?…` : path;
}

/** A hop count becomes the equivalent trust function (Fastify's types take no number). */
function trustProxyOption(t: false | number | string[]) {
  return typeof t === 'number' ? (_address: string, hop: number) => hop < t : t;
}

/** Builds the whole HTTP service around a context; the caller decides where it listens. */
export async function buildServer(
  app: AppContext,
  opts: {
    runJobs?: boolean;
    /** The server thread's number (WORKERS > 1): every log line names it. */
    thread?: number;
  } = {},
): Promise<FastifyInstance> {
  const fastify = Fastify({
    logger: {
      level: app.config.logLevel,
      // Pino's own fields, and the thread: the threads of one process share its pid.
      base: { pid: process.pid, hostname: hostname(), thread: opts.thread },
      // stdout belongs to the command's own output (the CLI prints JSON there).
      stream: process.stderr,
      redact: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'],
      // Some paths carry a secret (invite tokens, emailed links): logged without it.
      serializers: {
        req: (req: {
          method: string;
          url: string;
          ip?: string;
          headers?: Record<string, unknown>;
        }) => ({
          method: req.method,
          url: redactUrl(req.url),
          remoteAddress: req.ip,
          headers: req.headers,
        }),
      },
    },
    trustProxy: trustProxyOption(app.config.trustProxy),
    bodyLimit: 1024 * 1024,
    // Time limits (a body that never finishes is a 408), checked often enough to hold.
    requestTimeout: app.config.http.requestTimeoutMs,
    connectionTimeout: app.config.http.connectionTimeoutMs,
    http: {
      headersTimeout: app.config.http.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(
        25,
        Math.min(1000, Math.floor(app.config.http.headersTimeoutMs / 4)),
      ),
      // Node would answer a missing Host with an empty 400; `requireHost` answers it.
      requireHostHeader: false,
    },
    // Refusals by node's parser and Fastify's router carry {"error"} like every answer.
    clientErrorHandler,
    frameworkErrors,
    requestIdHeader: 'x-request-id',
    // Signed links carry their payload in the path (/action/<payload>.<signature>).
    routerOptions: { maxParamLength: 512 },
  });
  app.log = fastify.log;
  trackHandlers(fastify);
  fastify.addHook('onRequest', requireHost);
  fastify.server.on('connect', refuseConnect);
  fastify.server.on('checkExpectation', refuseExpectation);
  // Bodies are JSON only; anything else is answered as a wrong media type, not parsed.
  fastify.removeContentTypeParser('text/plain');

  fastify.setErrorHandler((err, req, reply) => {
    const r = restError(err, req.log);
    return reply.code(r.status).headers(r.headers).send(r.body);
  });
  // The API's unknown paths answer as the API does; the portal's as a page a person reads.
  fastify.setNotFoundHandler((req, reply) =>
    req.url.startsWith('/app/') || req.url === '/app'
      ? reply
          .code(404)
          .headers(PAGE_HEADERS)
          .send(
            page(
              'Page not found',
              html`<h1>Page not found</h1><p>There is no page at this address. It may have moved, or the link may be mistyped.</p><p><a href="/app">Go to the overview</a></p>`,
            ),
          )
      : reply.code(404).send({ error: 'not found' }),
  );

  fastify.get('/healthz', async () => ({ ok: true }));
  // The icon MCP clients show beside the server's name (serverInfo.icons).
  fastify.get('/icon.svg', async (_req, reply) =>
    reply
      .type('image/svg+xml')
      .header('cache-control', 'public, max-age=86400')
      .send(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#101828"/><path d="M18 44V20h17a9 9 0 0 1 0 18H26m0-18v24" fill="none" stroke="#fff" stroke-width="6" stroke-linecap="round" stroke-linejoin="round"/></svg>',
      ),
  );
  // While the instance drains, each answer ends its connection: a balancer's kept
  // connections move to the other instances instead of dying with this one.
  fastify.addHook('onSend', async (_req, reply) => {
    if (isDraining(fastify)) reply.header('connection', 'close');
  });
  // Ready means every request could be served now: the database answers (and, on SQLite,
  // is still the file at its path) and the rate-limit windows (Redis) can be counted; not
  // while the instance shuts down.
  fastify.get('/readyz', async (req, reply) => {
    if (isDraining(fastify)) return reply.code(503).send({ error: 'shutting down' });
    try {
      await Promise.all([ping(app.db), app.limiter.ping()]);
      return { ok: true };
    } catch (err) {
      req.log.warn({ err }, 'not ready');
      return reply.code(503).send({ error: 'service unavailable' });
    }
  });

  const openapi = buildOpenApi(restOperations, app.config.baseUrl);
  fastify.get('/v1/openapi.json', async () => openapi);
  await fastify.register(swagger, {
    mode: 'static',
    specification: { document: openapi as never },
  });
  await fastify.register(swaggerUi, { routePrefix: '/docs' });

  mountRest(fastify, app, restOperations);
  mountBilling(fastify, app);
  const oauth = lazyOAuthProvider(app);
  mountOAuth(fastify, app, oauth);
  mountMcp(fastify, app, oauth);
  mountOnboarding(fastify, app);
  mountShares(fastify, app);
  mountPortal(fastify, app);

  // Every server process runs background jobs; claims are atomic (src/jobs/queue.ts). The
  // handlers are the server's to wire: a context alone (the CLI's) claims no job.
  app.jobs.register(jobDefinitions);
  if (opts.runJobs ?? true) {
    app.jobs.start();
    const stopFeeds = startFeedScheduler(app);
    const stopConnectors = startConnectorScheduler(app);
    const bluesky = app.config.connectors.includes('bluesky') ? startBlueskyStream(app) : null;
    const stopDigests = startDigestScheduler(app);
    fastify.addHook('onClose', async () => {
      stopFeeds();
      stopConnectors();
      await bluesky?.stop();
      stopDigests();
      await app.jobs.stop();
    });
  }

  // Expired idempotency and OAuth records are useless, finished jobs and webhook deliveries
  // past their retention too; sweep them hourly (any process may).
  const sweeper = setInterval(() => {
    sweepExpiredIdempotency(app).catch((err) =>
      fastify.log.warn({ err }, 'idempotency sweep failed'),
    );
    sweepExpiredOAuth(app.db).catch((err) => fastify.log.warn({ err }, 'oauth sweep failed'));
    pruneFinished(app).catch((err) => fastify.log.warn({ err }, 'retention sweep failed'));
    pruneFound(app).catch((err) => fastify.log.warn({ err }, 'found items sweep failed'));
  }, 3_600_000);
  sweeper.unref();
  fastify.addHook('onClose', async () => clearInterval(sweeper));
  return fastify;
}
