import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors, type Provider } from 'oidc-provider';
import { addressBucket } from '../auth/client-address.js';
import { knownDevice, rememberDevice } from '../auth/device-cookie.js';
import { checkPassword, countSignInAttempt, forgiveSignIn, workspacesOf } from '../auth/sign-in.js';
import { signLink, verifyLink } from '../auth/signed-links.js';
import type { AppContext } from '../context.js';
import { activeMember } from '../domain/accounts.js';
import { corsPolicy } from '../http/cors.js';
import { trackReply } from '../http/shutdown.js';
import { powersOf } from '../mcp/mcp-server.js';
import { formField, mountFormPages, REDIRECTING_PAGE_HEADERS } from '../web/forms.js';
import { memberActor } from './authenticate-token.js';
import { type ClientLabel, consentPage, errorPage, signInPage, workspacePage } from './pages.js';
import { issuerOf, MCP_SCOPE, mcpResource } from './provider.js';
import { beforeTokenRequest } from './refresh-grace.js';
import { parseSubject, subjectOf } from './subject.js';

/**
 * Dynamic client registration is open (MCP clients register themselves), so it is capped
 * per client address (OAUTH_REGISTRATIONS_PER_HOUR; an IPv6 address by its /64, as
 * failed credentials are): a client registers once per install, not in a loop.
 */
const REGISTRATION_WINDOW_MS = 3600_000;

/** The workspace chooser must be answered within this time after the password was checked. */
const TICKET_TTL_MS = 10 * 60_000;

/** Paths oidc-provider answers itself (the interaction pages are ours). */
/**
 * The endpoints oidc-provider serves (provider.ts `routes`, with their sub-paths: resuming
 * an authorization, a registered client, the end-session steps); any other path under
 * /oauth is ours, so an unknown one gets the service's own `{"error"}` 404.
 */
const PROVIDER_PATHS =
  /^\/oauth\/(?:(?:authorize|register|session\/end)(?:\/[^/]+)?|token|revoke|jwks)$/;

const PUBLIC_DOCUMENTS = /^\/(?:\.well-known\/|oauth\/jwks$)/;

function providerPath(path: string): boolean {
  return (
    PROVIDER_PATHS.test(path) ||
    path === '/.well-known/openid-configuration' ||
    path === '/.well-known/oauth-authorization-server'
  );
}

/**
 * Mounts the authorization server: oidc-provider's own endpoints under /oauth (handed the
 * raw request before Fastify reads a body, because the library parses its own), the two
 * discovery documents, and our sign-in, workspace and consent pages.
 */
export function mountOAuth(
  fastify: FastifyInstance,
  app: AppContext,
  getProvider: () => Promise<Provider>,
) {
  let handler: ReturnType<Provider['callback']> | undefined;
  const cors = corsPolicy(app);
  fastify.addHook('onRequest', async (req, reply) => {
    const [path, query] = splitUrl(req.url);
    if (!providerPath(path)) return;
    // The endpoints that act (register, token, revoke, …) answer browsers of allowed
    // origins only; the public documents (discovery, keys) any page may read.
    if (!PUBLIC_DOCUMENTS.test(path) && cors(req, reply, 'GET, POST')) return reply;
    // Throws while the database is down: the error handler answers 503.
    handler ??= (await getProvider()).callback();
    // RFC 8414's name for the document oidc-provider serves as OpenID discovery.
    if (path === '/.well-known/oauth-authorization-server') {
      req.raw.url = `/.well-known/openid-configuration${query}`;
    }
    if (path === '/oauth/authorize') req.raw.url = withMcpScope(path, query);
    let forward = req.raw;
    if (path === '/oauth/register' && req.method === 'POST') {
      const bucket = `oauth-register:${addressBucket(req.ip)}`;
      const w = await app.limiter.hit(bucket, REGISTRATION_WINDOW_MS);
      const limit = app.config.oauthRegistrationsPerHour;
      if (w.count > limit) {
        const wait = Math.max(1, Math.ceil((w.resetAt - app.clock.now().getTime()) / 1000));
        return reply
          .code(429)
          .header('retry-after', String(wait))
          .send({
            error: 'too_many_requests',
            error_description: `at most ${limit} client registrations an hour from one address; try again in ${wait} s`,
          });
      }
    }
    if (path === '/oauth/token' && req.method === 'POST') {
      const next = await beforeTokenRequest(app, req, reply);
      if (next === 'answered') return reply;
      forward = next;
    }
    reply.hijack();
    // oidc-provider answers on its own: shutting down waits for it like for a handler.
    trackReply(fastify, reply.raw);
    handler(forward, reply.raw);
  });

  // RFC 9728: where /mcp's tokens come from. Served at the root and at the path-suffixed
  // name that clients try first for the /mcp resource.
  const metadata = {
    resource: mcpResource(app),
    authorization_servers: [issuerOf(app)],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'Stories MCP server',
    resource_documentation: `${issuerOf(app)}/docs`,
  };
  for (const path of [
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-protected-resource/mcp',
  ]) {
    fastify.get(path, async (_req, reply) =>
      reply.header('access-control-allow-origin', '*').send(metadata),
    );
  }

  mountFormPages(fastify, REDIRECTING_PAGE_HEADERS, (pages) =>
    mountInteractionPages(pages, app, getProvider),
  );
}

type UidRequest = FastifyRequest<{ Params: { uid: string }; Body: unknown }>;

function mountInteractionPages(
  fastify: FastifyInstance,
  app: AppContext,
  getProvider: () => Promise<Provider>,
) {
  fastify.get('/oauth/interaction/:uid', async (req: UidRequest, reply) => {
    const provider = await getProvider();
    const details = await interaction(provider, req, reply);
    if (!details) return;
    const client = await clientLabel(provider, details.params);
    if (details.prompt.name === 'login') return signInPage(details.uid, client);
    const member = await memberOf(app, details.session?.accountId);
    if (!member) return reply.code(400).send(errorPage('Your sign-in is no longer valid.'));
    return consentPage(details.uid, client, member, powersOf(memberActor(member, app.clock.now())));
  });

  fastify.post('/oauth/interaction/:uid/login', async (req: UidRequest, reply) => {
    const provider = await getProvider();
    const details = await interaction(provider, req, reply, 'login');
    if (!details) return;
    const client = await clientLabel(provider, details.params);
    const email = formField(req, 'email').trim().toLowerCase();
    const device = await knownDevice(app, req, email);
    const attempt = await countSignInAttempt(app, req.ip, email, device);
    if (!attempt.allowed) {
      return reply
        .code(429)
        .header('retry-after', '60')
        .send(signInPage(details.uid, client, 'Too many attempts. Wait a minute and try again.'));
    }
    const userId = await checkPassword(app, email, formField(req, 'password'));
    if (!userId) {
      return reply
        .code(401)
        .send(signInPage(details.uid, client, 'That email and password do not match.'));
    }
    // The right password: this attempt does not count against the address or email.
    await forgiveSignIn(app, attempt);
    await rememberDevice(app, reply, email);
    const workspaces = await workspacesOf(app, userId);
    if (workspaces.length === 0) {
      return reply.code(403).send(errorPage('This user is not an active member of any team.'));
    }
    if (workspaces.length === 1) {
      return finish(provider, req, reply, {
        login: { accountId: subjectOf(workspaces[0]!.id, userId) },
      });
    }
    const ticket = await signLink(
      app,
      'oauth-workspace',
      { i: details.uid, u: userId },
      TICKET_TTL_MS,
    );
    return workspacePage(details.uid, client, workspaces, ticket);
  });

  fastify.post('/oauth/interaction/:uid/workspace', async (req: UidRequest, reply) => {
    const provider = await getProvider();
    const details = await interaction(provider, req, reply, 'login');
    if (!details) return;
    const ticket = await verifyLink(app, 'oauth-workspace', formField(req, 'ticket'));
    if (!ticket || ticket.i !== details.uid || typeof ticket.u !== 'string') {
      return reply.code(400).send(errorPage('This sign-in has expired. Start again.'));
    }
    const chosen = (await workspacesOf(app, ticket.u)).find(
      (w) => w.id === formField(req, 'account'),
    );
    if (!chosen) return reply.code(400).send(errorPage('Choose one of your teams.'));
    return finish(provider, req, reply, { login: { accountId: subjectOf(chosen.id, ticket.u) } });
  });

  fastify.post('/oauth/interaction/:uid/consent', async (req: UidRequest, reply) => {
    const provider = await getProvider();
    const details = await interaction(provider, req, reply, 'consent');
    if (!details) return;
    if (formField(req, 'decision') !== 'allow') {
      return finish(provider, req, reply, {
        error: 'access_denied',
        error_description: 'the user declined the request',
      });
    }
    const accountId = details.session!.accountId;
    const clientId = details.params.client_id as string;
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId, clientId });
    if (!grant) return reply.code(400).send(errorPage('This sign-in has expired. Start again.'));
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    const grantId = await grant.save();
    return finish(provider, req, reply, { consent: { grantId } }, true);
  });
}

/** The pending interaction behind this page, or null once an error page has been sent. */
async function interaction(
  provider: Provider,
  req: UidRequest,
  reply: FastifyReply,
  prompt?: 'login' | 'consent',
) {
  const details = await provider.interactionDetails(req.raw, reply.raw).catch((err) => {
    // No interaction cookie (another browser, or expired): nothing here can be trusted.
    // Anything else (the database) goes to the error handler.
    if (err instanceof errors.SessionNotFound) return null;
    throw err;
  });
  if (details && details.uid === req.params.uid && (!prompt || details.prompt.name === prompt)) {
    return details;
  }
  reply
    .code(400)
    .send(
      errorPage(
        'This sign-in has expired or was opened elsewhere. Start again from your application.',
      ),
    );
  return null;
}

/** Hands the outcome to oidc-provider and sends the browser back into the flow. */
async function finish(
  provider: Provider,
  req: UidRequest,
  reply: FastifyReply,
  result: Record<string, unknown>,
  merge = false,
) {
  const to = await provider.interactionResult(req.raw, reply.raw, result, {
    mergeWithLastSubmission: merge,
  });
  return reply.redirect(to, 303);
}

/** The client's name and where this very request returns to (not just any of its URIs). */
async function clientLabel(
  provider: Provider,
  params: Record<string, unknown>,
): Promise<ClientLabel> {
  const clientId = String(params.client_id);
  const client = await provider.Client.find(clientId);
  let redirectHost = '';
  try {
    const redirect = new URL(String(params.redirect_uri));
    // Native apps return to a custom scheme (cursor://…): name the scheme then.
    redirectHost = redirect.host || redirect.protocol;
  } catch {
    // oidc-provider validated the URI already; nothing to name otherwise.
  }
  return {
    name: client?.clientName ?? clientId,
    documentHost: documentHostOf(clientId),
    redirectHost,
  };
}

/** The host of a client_id that is a metadata document's URL (https://…), else null. */
function documentHostOf(clientId: string): string | null {
  if (!clientId.startsWith('https://')) return null;
  try {
    return new URL(clientId).host;
  } catch {
    return null;
  }
}

async function memberOf(app: AppContext, sub: string | undefined) {
  const subject = sub ? parseSubject(sub) : null;
  if (!subject) return undefined;
  return activeMember(app, subject.accountId, subject.userId);
}

/**
 * Every authorization asks for the `mcp` scope, the one thing a token here is for: a
 * client that names no scope, or only `openid`, gets it too instead of a token /mcp
 * refuses (or a refusal after the person signed in).
 */
function withMcpScope(path: string, query: string): string {
  const params = new URLSearchParams(query.slice(1));
  const scopes = new Set((params.get('scope') ?? '').split(' ').filter(Boolean));
  if (scopes.has(MCP_SCOPE)) return `${path}${query}`;
  scopes.add(MCP_SCOPE);
  params.set('scope', [...scopes].join(' '));
  return `${path}?${params}`;
}

function splitUrl(url: string): [string, string] {
  const i = url.indexOf('?');
  return i === -1 ? [url, ''] : [url.slice(0, i), url.slice(i)];
}
