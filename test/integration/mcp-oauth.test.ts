import {
  type OAuthClientProvider,
  refreshAuthorization,
  UnauthorizedError,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  AuthorizationServerMetadata,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeAdapterFactory } from '../../src/db/oauth-store.js';
import { addUser } from '../../src/domain/accounts.js';
import { restOperations } from '../../src/operations/index.js';
import { startService, type TestService } from '../support/harness.js';
import { listToolsWith, OAuthBrowser, signIn } from '../support/oauth-browser.js';
import { PortalClient } from '../support/portal-client.js';
import { seedWorld, type World } from '../support/world.js';

/** OAuth 2.1 on /mcp, driven by the official SDK client as an agent host drives it. */
let svc: TestService;
let w: World;
const OWNER = { email: 'owner@northwind.example', password: 'correct horse battery' };
const REDIRECT = 'http://127.0.0.1:1/callback';

beforeAll(async () => {
  // Nearly every test here registers a client from the same address.
  svc = await startService({ OAUTH_REGISTRATIONS_PER_HOUR: '1000' }, { runJobs: false });
  w = await seedWorld(svc.app);
});
afterAll(() => svc.close());

/** The SDK's provider interface, kept in memory, with a browser that signs in. */
class TestAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  code?: string;
  constructor(readonly browser: OAuthBrowser) {}
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK test agent',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL) {
    const back = await this.browser.authorize(url.href, REDIRECT);
    this.code = back.searchParams.get('code') ?? undefined;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const mcpUrl = () => new URL(`${svc.url}/mcp`);

async function connectWith(authProvider: TestAuthProvider) {
  const client = new Client({ name: 'stories-oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider }));
  return client;
}

async function bearerClient(token: string) {
  const client = new Client({ name: 'stories-oauth-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(mcpUrl(), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

const postMcp = (token: string) => listToolsWith(svc.url, token);

describe('OAuth 2.1 with the SDK client', () => {
  it('401 → discovery → registration → PKCE sign-in and consent → token → tools, refresh, revocation', async () => {
    const browser = new OAuthBrowser(OWNER);
    const auth = new TestAuthProvider(browser);

    // First contact: 401 with the resource metadata, then the whole flow in the SDK.
    const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: auth });
    const first = new Client({ name: 'stories-oauth-test', version: '1.0.0' });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(auth.client?.client_id).toBeTruthy();
    expect(auth.code).toBeTruthy();
    // The pages named the client and the user's team.
    expect(browser.pages.some((p) => p.includes('SDK test agent') && p.includes('Sign in'))).toBe(
      true,
    );
    expect(
      browser.pages.some((p) => p.includes('Allow SDK test agent') && p.includes('Northwind')),
    ).toBe(true);
    await transport.finishAuth(auth.code!);
    expect(auth.saved?.access_token).toBeTruthy();
    expect(auth.saved?.refresh_token).toBeTruthy();

    const client = await connectWith(auth);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    // An agency account is on a plan with API access: user tools and the v1_ tools, but
    // for the two no person or agent can ever run (keys are made and delegations granted
    // by people in the portal).
    expect(names).toEqual(expect.arrayContaining(['list_brands', 'get_story', 'unlock_advisory']));
    expect(names.filter((n) => n.startsWith('v1_')).sort()).toEqual(
      restOperations
        .map((op) => `v1_${op.id}`)
        .filter((n) => n !== 'v1_create_api_key' && n !== 'v1_grant_delegation')
        .sort(),
    );
    const brands = (await client.callTool({ name: 'list_brands', arguments: {} })) as unknown as {
      structuredContent: { brands: { brand_id: string }[] };
    };
    expect(brands.structuredContent.brands.map((b) => b.brand_id)).toContain('northwind.example');
    await client.close();

    // Refresh: a new pair, and the used refresh token is spent.
    const metadata = (await (
      await fetch(`${svc.url}/.well-known/oauth-authorization-server`)
    ).json()) as AuthorizationServerMetadata;
    const old = auth.saved!;
    const fresh = await refreshAuthorization(svc.url, {
      metadata,
      clientInformation: auth.client!,
      refreshToken: old.refresh_token!,
      resource: mcpUrl(),
    });
    expect(fresh.access_token).not.toBe(old.access_token);
    expect(fresh.refresh_token).toBeTruthy();
    expect(fresh.refresh_token).not.toBe(old.refresh_token);
    expect((await postMcp(fresh.access_token)).status).toBe(200);

    // Revocation: the very next call is refused.
    const revoke = await fetch(`${svc.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: fresh.access_token,
        client_id: auth.client!.client_id,
      }).toString(),
    });
    expect(revoke.status).toBe(200);
    const after = await postMcp(fresh.access_token);
    expect(after.status).toBe(401);
    // A token that was sent and refused is named invalid_token (RFC 6750).
    expect(after.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${svc.url}/.well-known/oauth-protected-resource", scope="mcp", error="invalid_token"`,
    );

    // Within the grace period, the spent refresh token again gets the same pair (parallel
    // refreshes); after it, a replay revokes the grant (oauth-refresh-grace.test.ts).
    const again = await refreshAuthorization(svc.url, {
      metadata,
      clientInformation: auth.client!,
      refreshToken: old.refresh_token!,
      resource: mcpUrl(),
    });
    expect(again.refresh_token).toBe(fresh.refresh_token);
  });

  it('serves both discovery documents', async () => {
    const as = (await (
      await fetch(`${svc.url}/.well-known/oauth-authorization-server`)
    ).json()) as AuthorizationServerMetadata;
    expect(as).toMatchObject({
      issuer: svc.url,
      registration_endpoint: `${svc.url}/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
    });
    expect(as.grant_types_supported).not.toContain('implicit');
    const pr = await (await fetch(`${svc.url}/.well-known/oauth-protected-resource`)).json();
    expect(pr).toMatchObject({
      resource: `${svc.url}/mcp`,
      authorization_servers: [svc.url],
      scopes_supported: ['mcp'],
    });
  });
});

describe('what the authorization server refuses', () => {
  async function register(redirect = REDIRECT) {
    const res = await fetch(`${svc.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [redirect], token_endpoint_auth_method: 'none' }),
    });
    return ((await res.json()) as { client_id: string }).client_id;
  }
  const authorizeUrl = (params: Record<string, string>) =>
    `${svc.url}/oauth/authorize?${new URLSearchParams({ response_type: 'code', scope: 'mcp', ...params })}`;

  it('an authorization request without PKCE, or with the plain method', async () => {
    const client_id = await register();
    const variants: Record<string, string>[] = [
      {},
      { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' },
    ];
    for (const extra of variants) {
      const res = await fetch(authorizeUrl({ client_id, redirect_uri: REDIRECT, ...extra }), {
        redirect: 'manual',
      });
      const to = new URL(res.headers.get('location')!);
      expect(to.href.startsWith(REDIRECT)).toBe(true);
      expect(to.searchParams.get('error')).toBe('invalid_request');
    }
  });

  it('a redirect URI that is not exactly a registered one', async () => {
    const client_id = await register();
    const res = await fetch(
      authorizeUrl({
        client_id,
        redirect_uri: `${REDIRECT}/../evil`,
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
      }),
      { redirect: 'manual' },
    );
    // Never redirected to an unregistered URI: an error page instead.
    expect(res.headers.get('location')).toBeNull();
    expect(res.status).toBe(400);
  });

  it('registers desktop and CLI clients by RFC 8252, and refuses plain http to another host', async () => {
    const registration = (redirect_uris: string[]) =>
      fetch(`${svc.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'Cursor',
          redirect_uris,
          token_endpoint_auth_method: 'none',
        }),
      });
    // Cursor's private-use scheme.
    const cursor = await registration(['cursor://anysphere.cursor-mcp/oauth/callback']);
    expect(cursor.status).toBe(201);
    // A loopback redirect is taken on whatever port the client listens on that day.
    const cli = await registration(['http://127.0.0.1/callback']);
    expect(cli.status).toBe(201);
    const { client_id } = (await cli.json()) as { client_id: string };
    const res = await fetch(
      authorizeUrl({
        client_id,
        redirect_uri: 'http://127.0.0.1:54321/callback',
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
      }),
      { redirect: 'manual' },
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/oauth\/interaction\//);
    // Plain http anywhere but the user's own machine could be read on the way.
    const plain = await registration(['http://app.example/callback']);
    expect(plain.status).toBe(400);
    expect(((await plain.json()) as { error: string }).error).toBe('invalid_redirect_uri');
  });

  it('a request naming no scope, or only openid, gets the mcp scope, and its token works on /mcp', async () => {
    for (const scope of ['', 'openid']) {
      const { access_token } = await signIn(svc.url, OWNER, undefined, { scope });
      expect((await postMcp(access_token)).status, `scope=${scope}`).toBe(200);
    }
  });

  it('never offers a secret to a public client', async () => {
    for (const body of [
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
      { redirect_uris: [REDIRECT] },
    ]) {
      const res = await fetch(`${svc.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(201);
      const client = (await res.json()) as Record<string, unknown>;
      expect(client.token_endpoint_auth_method).toBe('none');
      expect(client).not.toHaveProperty('client_secret');
      expect(client).not.toHaveProperty('client_secret_expires_at');
    }
  });

  it('a token for another resource', async () => {
    const client_id = await register();
    const res = await fetch(
      authorizeUrl({
        client_id,
        redirect_uri: REDIRECT,
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
        resource: 'https://other.example/mcp',
      }),
      { redirect: 'manual' },
    );
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
  });

  it('the sign-in page takes forms only, and limits attempts per email', async () => {
    const json = await fetch(`${svc.url}/oauth/interaction/abc/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 1, password: ['a'] }),
    });
    // Refused as a wrong media type (a 4xx), never read as JSON.
    expect(json.status).toBe(400);
    const target = { email: 'member.limit@northwind.example', password: 'wrong' };
    await addUser(svc.app, {
      accountId: w.accounts.agency,
      email: target.email,
      password: OWNER.password,
      role: 'member',
    });
    const errors: string[] = [];
    for (let i = 0; i < 11; i++) {
      await signIn(svc.url, target).catch((e: Error) => errors.push(e.message));
    }
    expect(errors.slice(0, 10).every((m) => m.includes('answered 401'))).toBe(true);
    expect(errors[10]).toContain('answered 429');
    // The right password does not help either within the minute.
    await expect(signIn(svc.url, { ...target, password: OWNER.password })).rejects.toThrow(/429/);
  });

  it('a user whose email was never confirmed cannot sign in', async () => {
    await addUser(svc.app, {
      accountId: w.accounts.agency,
      email: 'unproved@northwind.example',
      password: OWNER.password,
      role: 'member',
    });
    await svc.app.db
      .updateTable('users')
      .set({ email_verified_at: null })
      .where('email', '=', 'unproved@northwind.example')
      .execute();
    await expect(
      signIn(svc.url, { email: 'unproved@northwind.example', password: OWNER.password }),
    ).rejects.toThrow(/401/);
  });

  it('the consent page lists every power by name, as the role allows, and says it never spends money', async () => {
    const powers = async (login: { email: string; password: string }) => {
      const browser = new OAuthBrowser(login);
      await signIn(svc.url, login, browser);
      const consent = browser.pages.find((p) => p.includes('Allow Test agent'))!;
      expect(consent).toContain('It never spends money');
      return [...consent.matchAll(/<code>([a-z0-9_]+)<\/code>/g)].map((m) => m[1]);
    };
    const owner = await powers(OWNER);
    // Partner powers too, named: dropping a delegation, notes, invites.
    for (const name of [
      'list_stories',
      'unlock_advisory',
      'apply_advisory_update',
      'v1_drop_delegation',
      'v1_post_brand_note',
      'v1_revoke_delegation_invite',
    ]) {
      expect(owner, name).toContain(name);
    }
    await addUser(svc.app, {
      accountId: w.accounts.agency,
      email: 'consent.member@northwind.example',
      password: OWNER.password,
      role: 'member',
    });
    const member = await powers({
      email: 'consent.member@northwind.example',
      password: OWNER.password,
    });
    expect(member).toContain('assign_action');
    // A member may neither apply advisory updates nor drop a client's delegation.
    for (const name of [
      'apply_advisory_update',
      'v1_apply_advisory_proposal',
      'v1_drop_delegation',
    ]) {
      expect(member, name).not.toContain(name);
    }
  });

  it('Connected apps in the portal: each client, where it returns, its last use, and Revoke', async () => {
    const login = { email: 'apps.owner@northwind.example', password: OWNER.password };
    await addUser(svc.app, { accountId: w.accounts.agency, ...login, role: 'admin' });
    const { access_token, client_id } = await signIn(svc.url, login);
    expect((await postMcp(access_token)).status).toBe(200);

    const portal = new PortalClient(svc.url);
    await portal.signIn(login.email, login.password);
    const page = await portal.get('/app/connected-apps');
    expect(page.status).toBe(200);
    const row = /<tr><td>Test agent<\/td>([\s\S]*?)<\/tr>/.exec(page.html)?.[1];
    expect(row).toContain('127.0.0.1:1');
    // Allowed and used a moment ago: two times, not "never".
    expect(
      row?.match(/<time datetime="\d{4}-[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/g),
    ).toHaveLength(2);
    expect(row).not.toContain('never');
    // Someone else's apps are not on another person's page.
    const other = new PortalClient(svc.url);
    await other.signIn(OWNER.email, OWNER.password);
    expect((await other.get('/app/connected-apps')).html).not.toContain(client_id);
    expect(
      (await other.post('/app/connected-apps/revoke', { client_id, confirmed: 'yes' })).status,
    ).toBe(404);
    expect((await postMcp(access_token)).status).toBe(200);

    const asked = await portal.post('/app/connected-apps/revoke', { client_id, name: 'x' });
    expect(asked.html).toContain('its tokens stop working at once');
    expect((await postMcp(access_token)).status).toBe(200);
    const revoked = await portal.post('/app/connected-apps/revoke', {
      client_id,
      confirmed: 'yes',
    });
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe('/app/connected-apps?done=app-revoked');
    expect((await postMcp(access_token)).status).toBe(401);
    expect((await portal.get('/app/connected-apps')).html).not.toContain(client_id);
  });

  it('a wrong password, and a declined consent', async () => {
    await expect(signIn(svc.url, { ...OWNER, password: 'wrong password' })).rejects.toThrow(/401/);
    const client_id = await register();
    const back = await new OAuthBrowser(OWNER, 'deny').authorize(
      authorizeUrl({
        client_id,
        redirect_uri: REDIRECT,
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
        state: 's1',
      }),
      REDIRECT,
    );
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
  });
});

describe('tokens on /mcp', () => {
  it('an expired token, a token bound to another audience, and garbage answer 401', async () => {
    const { access_token } = await signIn(svc.url, OWNER);
    expect((await postMcp(access_token)).status).toBe(200);
    const store = storeAdapterFactory(svc.app.db)('AccessToken');
    const payload = (await store.find(access_token))!;

    // The same grant, stored as a token for another resource server.
    const foreign = `${'f'.repeat(43)}`;
    await store.upsert(
      foreign,
      { ...payload, jti: foreign, aud: 'https://other.example/mcp' },
      3600,
    );
    expect((await postMcp(foreign)).status).toBe(401);

    // Expired: the stored record says so.
    await svc.app.db
      .updateTable('oauth_records')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('kind', '=', 'AccessToken')
      .execute();
    const expired = await postMcp(access_token);
    expect(expired.status).toBe(401);
    expect(await expired.json()).toEqual({ error: 'invalid, expired or revoked access token' });
    expect((await postMcp('not-a-token')).status).toBe(401);
  });

  it('stores tokens hashed: no bearer value or session cookie appears in the database', async () => {
    const browser = new OAuthBrowser(OWNER);
    const { access_token, refresh_token } = await signIn(svc.url, OWNER, browser);
    const session = browser.cookie('_session');
    expect(session).toBeTruthy();
    const rows = await svc.app.db.selectFrom('oauth_records').select(['id', 'payload']).execute();
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(access_token);
    expect(dump).not.toContain(refresh_token);
    expect(dump).not.toContain(session);
  });

  it('tokens outlive the sign-in page session', async () => {
    const { access_token } = await signIn(svc.url, OWNER);
    await svc.app.db.deleteFrom('oauth_records').where('kind', '=', 'Session').execute();
    expect((await postMcp(access_token)).status).toBe(200);
  });

  it('signing in again as another team in the same browser ends the old session', async () => {
    await addUser(svc.app, {
      accountId: w.accounts.starter,
      email: 'two.teams@example.com',
      password: OWNER.password,
      role: 'owner',
    });
    await addUser(svc.app, {
      accountId: w.accounts.client,
      email: 'two.teams@example.com',
      password: OWNER.password,
      role: 'member',
    });
    const login = {
      email: 'two.teams@example.com',
      password: OWNER.password,
      team: w.accounts.starter,
    };
    const browser = new OAuthBrowser(login);
    await signIn(svc.url, login, browser);
    const switched = { ...login, team: w.accounts.client };
    const { access_token } = await signIn(svc.url, switched, new OAuthBrowser(switched), {});
    expect((await postMcp(access_token)).status).toBe(200);
    // The same browser, asked to sign in again, picks the other team.
    Object.assign(login, { team: w.accounts.client });
    const again = await signIn(svc.url, login, browser, { prompt: 'login' });
    const client = await bearerClient(again.access_token);
    const r = (await client.callTool({ name: 'list_brands', arguments: {} })) as unknown as {
      structuredContent: { brands: { brand_id: string }[] };
    };
    await client.close();
    expect(r.structuredContent.brands.map((b) => b.brand_id)).toEqual(['acme.com']);
  });

  it('a user on a plan without API access gets the user tools only', async () => {
    await addUser(svc.app, {
      accountId: w.accounts.client,
      email: 'owner@acme.com',
      password: 'correct horse battery',
      role: 'owner',
    });
    const { access_token } = await signIn(svc.url, {
      email: 'owner@acme.com',
      password: 'correct horse battery',
    });
    const client = await bearerClient(access_token);
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    await client.close();
    expect(names).toEqual([
      'add_context',
      'apply_advisory_update',
      'assign_action',
      'create_share',
      'get_story',
      'list_brands',
      'list_stories',
      'search_stories',
      'unlock_advisory',
      'validate_action',
    ]);
  });

  it('a person in two teams chooses one, and the token acts there only', async () => {
    // A person of its own: a second team would change the owner's sign-in for other tests.
    const person = { email: 'two.places@northwind.example', password: OWNER.password };
    for (const accountId of [w.accounts.agency, w.accounts.other]) {
      await addUser(svc.app, { accountId, ...person, role: 'member' });
    }
    const { access_token } = await signIn(svc.url, { ...person, team: w.accounts.other });
    const client = await bearerClient(access_token);
    const r = (await client.callTool({ name: 'list_brands', arguments: {} })) as unknown as {
      structuredContent: { brands: { brand_id: string }[] };
    };
    await client.close();
    expect(r.structuredContent.brands.map((b) => b.brand_id)).toEqual(['globex.com']);
  });
});
