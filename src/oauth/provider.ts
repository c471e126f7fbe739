import { generateKeyPairSync, randomBytes } from 'node:crypto';
import Provider, { type Configuration, errors, type JWK } from 'oidc-provider';
import { signingSecret } from '../auth/signed-links.js';
import type { AppContext } from '../context.js';
import { storeAdapterFactory } from '../db/oauth-store.js';
import { readSetting, storeSettingOnce } from '../db/settings.js';
import { publicHostFetch } from '../net/safe-fetch.js';
import { errorPage } from './pages.js';
import { afterTokenRequest, claimedRefresh } from './refresh-grace.js';

/** The one scope there is: acting on Stories through /mcp as the signed-in user. */
export const MCP_SCOPE = 'mcp';

/** Lifetimes in seconds (the specification leaves them to us; docs/api.md states them). */
export const OAUTH_TTL = {
  AccessToken: 3600,
  AuthorizationCode: 60,
  RefreshToken: 30 * 24 * 3600,
  Grant: 30 * 24 * 3600,
  Interaction: 3600,
  Session: 14 * 24 * 3600,
} as const;

export const mcpResource = (app: AppContext) => `${issuerOf(app)}/mcp`;
export const issuerOf = (app: AppContext) => app.config.baseUrl.replace(/\/+$/, '');

/**
 * The OAuth 2.1 authorization server (oidc-provider) for MCP clients: dynamic client
 * registration, authorization code with PKCE S256 (the library accepts no other method),
 * exact redirect URIs, opaque access tokens bound to the /mcp resource (RFC 8707) and
 * stored, refresh tokens rotated on every use, revocation. State lives in the service's
 * database through `store-adapter.ts`, so any process can answer any step.
 */
export async function createOAuthProvider(app: AppContext): Promise<Provider> {
  const resource = mcpResource(app);
  const configuration: Configuration = {
    adapter: storeAdapterFactory(app.db),
    clients: [],
    jwks: { keys: [await signingKey(app)] },
    cookies: { keys: [(await signingSecret(app)).toString('base64url')] },
    routes: {
      authorization: '/oauth/authorize',
      token: '/oauth/token',
      registration: '/oauth/register',
      revocation: '/oauth/revoke',
      jwks: '/oauth/jwks',
      // Only its /confirm step is used: signing in as someone else ends the old session.
      end_session: '/oauth/session/end',
    },
    scopes: ['openid', 'offline_access', MCP_SCOPE],
    // OAuth 2.1: the authorization code flow only (no implicit or hybrid responses).
    responseTypes: ['code'],
    claims: { openid: ['sub'] },
    clientDefaults: {
      // MCP clients are mostly apps on the user's machine (Cursor, Claude Desktop, CLIs):
      // unless a client says it is a web application, its redirects follow RFC 8252 —
      // private-use schemes (cursor://…), loopback http on any port, claimed https — and
      // plain http to another host is refused.
      application_type: 'native',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      // The one signing key is an EC key (below).
      id_token_signed_response_alg: 'ES256',
    },
    // Every fetch the library makes (client metadata documents): public hosts only,
    // checked at connect (FETCH_ALLOW_HOSTS excepted), as every user-given URL here, and
    // never a redirect (it would lead past that check); bodies bounded.
    fetch: rememberingFailures((url, options) =>
      publicHostFetch(app.config, url, options ?? {}),
    ) as unknown as Configuration['fetch'],
    fetchResponseBodyLimits: {
      'client_id metadata document': 5 * 1024,
      jwks_uri: 64 * 1024,
      sector_identifier_uri: 64 * 1024,
    },
    // Public clients (PKCE) and, for the rare one that asks, a client secret. No signed
    // assertions: nothing here needs them, and they would make the library fetch the
    // client's keys from a URL it names.
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    // MCP hosts run in browsers too (the MCP Inspector): a browser's origin is checked
    // before the library sees the request (src/http/cors.ts: the service's own and
    // CORS_ORIGINS); past that, tokens, not origins, are what authorize.
    clientBasedCORS: () => true,
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      // A client revokes its own tokens only. /mcp checks tokens in-process, so no
      // introspection endpoint is offered.
      revocation: {
        enabled: true,
        allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
      },
      introspection: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      userinfo: { enabled: false },
      // /mcp checks bearer tokens only; sender-constrained tokens are not offered.
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      // MCP 2025-11-25: a client may name itself by an HTTPS URL serving its metadata
      // (Client ID Metadata Documents) instead of registering. The document is fetched
      // through the service's SSRF-safe dispatcher (below) and kept for its max-age,
      // within 5 minutes and a day.
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        cacheDuration: { min: 300, max: 86_400 },
      },
      resourceIndicators: {
        enabled: true,
        // A client that names no resource still gets a token for /mcp: there is no other.
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== resource) throw new errors.InvalidTarget();
          return {
            scope: MCP_SCOPE,
            audience: resource,
            accessTokenFormat: 'opaque',
            accessTokenTTL: OAUTH_TTL.AccessToken,
          };
        },
      },
    },
    // Refresh tokens for every client allowed the grant (MCP clients rarely ask for
    // offline_access), rotated on each use: a replayed old one revokes the grant, once
    // its grace period for parallel refreshes is over (refresh-grace.ts).
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Tokens live their own lifetimes, not the sign-in page's session's.
    expiresWithSession: () => false,
    rotateRefreshToken: true,
    ttl: { ...OAUTH_TTL },
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    // The subject is a membership: the user acting in one account (see interaction-routes).
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = errorPage(
        `${out.error_description ?? out.error}. Start again from the application that sent you here.`,
      );
    },
  };
  const provider = new Provider(issuerOf(app), configuration);
  // A public client (auth method none) is never offered a secret: the library makes one
  // for a registration that names no method before the default (none) applies.
  provider.use(async (ctx, next) => {
    await next();
    const answer = ctx.body as Record<string, unknown> | undefined;
    if (
      ctx.method === 'POST' &&
      ctx.path === '/oauth/register' &&
      ctx.status === 201 &&
      answer?.token_endpoint_auth_method === 'none'
    ) {
      delete answer.client_secret;
      delete answer.client_secret_expires_at;
    }
  });
  // A refresh other requests may repeat within the grace period: its answer is kept.
  provider.use(async (ctx, next) => {
    const token = claimedRefresh(ctx.req);
    if (token === undefined) return next();
    try {
      await next();
    } finally {
      await afterTokenRequest(app, token, ctx.status, ctx.body);
    }
  });
  provider.proxy = app.config.trustProxy !== false;
  pinOrigin(provider, issuerOf(app));
  provider.on('server_error', (_ctx, err) => app.log?.error({ err }, 'oauth server error'));
  return provider;
}

/**
 * Koa, under oidc-provider, builds every URL it answers (discovery endpoints, redirects)
 * from the request's Host or X-Forwarded-Host and scheme, which any client can set. The
 * service lives at BASE_URL, so this app's requests say so whatever their headers say
 * (the address, `ctx.ip`, still follows TRUST_PROXY).
 */
function pinOrigin(provider: Provider, base: string) {
  const url = new URL(base);
  Object.defineProperties(provider.request, {
    host: { get: () => url.host },
    hostname: { get: () => url.hostname },
    protocol: { get: () => url.protocol.slice(0, -1) },
  });
}

/**
 * The key oidc-provider signs with (ID tokens, if a client asks for openid): made once
 * per database, so every process signs alike; the first process to store one wins.
 */
async function signingKey(app: AppContext): Promise<JWK> {
  const existing = await readSetting(app.db, 'oauth_signing_jwk');
  if (existing) return JSON.parse(existing) as JWK;
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = {
    ...privateKey.export({ format: 'jwk' }),
    kid: randomBytes(8).toString('hex'),
    use: 'sig',
    alg: 'ES256',
  };
  await storeSettingOnce(app.db, 'oauth_signing_jwk', JSON.stringify(jwk));
  return signingKey(app);
}

/**
 * The provider, built on first use: building it reads the database (keys and secret), and
 * the service must start, and answer 503, while the database is down. A failed build is
 * retried by the next request.
 */
export function lazyOAuthProvider(app: AppContext): () => Promise<Provider> {
  let pending: Promise<Provider> | undefined;
  return () => {
    pending ??= createOAuthProvider(app).catch((err) => {
      pending = undefined;
      throw err;
    });
    return pending;
  };
}

/** How long a failed fetch of a client's document is answered from memory. */
const FAILED_FETCH_MS = 30_000;

/**
 * oidc-provider looks a client up more than once in one authorization request (for the
 * request, then for its error page) and fetches a metadata document each time it has
 * none: a document server that does not answer cost its 2.5 s deadline twice. A fetch
 * that failed is remembered for FAILED_FETCH_MS, so a sign-in waits on one deadline.
 */
function rememberingFailures(
  fetchOnce: (url: string, options: object | undefined) => Promise<unknown>,
) {
  const failed = new Map<string, { until: number; error: unknown }>();
  return async (url: URL | string, options?: object) => {
    const key = String(url);
    const now = Date.now();
    const known = failed.get(key);
    if (known && known.until > now) throw known.error;
    try {
      return await fetchOnce(key, options);
    } catch (error) {
      // Bounded: a flood of bad client_ids forgets, it does not grow.
      if (failed.size >= 1000) failed.clear();
      failed.set(key, { until: now + FAILED_FETCH_MS, error });
      throw error;
    }
  };
}
