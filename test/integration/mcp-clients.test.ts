import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startService, type TestService } from '../support/harness.js';
import {
  authorizeUrl,
  OAuthBrowser,
  pkcePair,
  redeemCode,
  signIn,
} from '../support/oauth-browser.js';
import { seedWorld, type World } from '../support/world.js';

/**
 * /mcp as the clients people use reach it: the SDK's 2.x client on the 2026-07-28
 * protocol (pinned and negotiating), the 1.x client on the 2025-11-25 handshake, and the
 * MCP Inspector's CLI on both eras. Each must see the same tools and get the same answers.
 */
let svc: TestService;
let w: World;
let userToken: string;
const MODERN = '2026-07-28';
const PASSWORD = 'correct horse battery';
const home = mkdtempSync(join(tmpdir(), 'brs-inspector-'));

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_PER_MINUTE: '2000' }, { runJobs: false });
  w = await seedWorld(svc.app);
  ({ access_token: userToken } = await signIn(svc.url, {
    email: 'owner@northwind.example',
    password: PASSWORD,
  }));
});
afterAll(async () => {
  await svc.close();
  rmSync(home, { recursive: true, force: true });
});

async function modernClient(headers: Record<string, string>, mode: 'auto' | 'pin' = 'pin') {
  const client = new ModernClient(
    { name: 'stories-test', version: '2.0.0' },
    { versionNegotiation: { mode: mode === 'pin' ? { pin: MODERN } : 'auto' } },
  );
  await client.connect(
    new ModernTransport(new URL(`${svc.url}/mcp`), { requestInit: { headers } }),
  );
  return client;
}

async function legacyClient(headers: Record<string, string>) {
  const client = new LegacyClient({ name: 'stories-test', version: '1.0.0' });
  await client.connect(
    new LegacyTransport(new URL(`${svc.url}/mcp`), { requestInit: { headers } }),
  );
  return client;
}

describe('the SDK clients, on both protocol eras', () => {
  it('a 2.x client pinned to 2026-07-28 discovers the server, lists and calls tools', async () => {
    const client = await modernClient({ 'x-api-key': w.keys.owner });
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getServerVersion()).toMatchObject({ name: 'stories', title: 'Stories' });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('v1_get_story');
      const r = (await client.callTool({
        name: 'v1_get_story',
        arguments: { brand: 'northwind.example', event_uri: w.stories.northwind },
      })) as any;
      expect(r.isError).toBeUndefined();
      expect(r.structuredContent.story.event_uri).toBe(w.stories.northwind);
      // A refusal is a tool result on this era too, with the REST status beside it.
      const refused = (await client.callTool({
        name: 'v1_get_story',
        arguments: { brand: 'unknown.example', event_uri: w.stories.northwind },
      })) as any;
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent.status).toBe(404);
    } finally {
      await client.close();
    }
  });

  it('a negotiating 2.x client chooses 2026-07-28; a 1.x client gets the same tools by initialize', async () => {
    const modern = await modernClient({ 'x-api-key': w.keys.owner }, 'auto');
    const legacy = await legacyClient({ 'x-api-key': w.keys.owner });
    try {
      expect(modern.getProtocolEra()).toBe('modern');
      expect(legacy.getServerVersion()?.name).toBe('stories');
      const a = (await modern.listTools()).tools;
      const b = (await legacy.listTools()).tools;
      expect(a.map((t) => t.name)).toEqual(b.map((t) => t.name));
      expect(a.map((t) => t.inputSchema)).toEqual(b.map((t) => t.inputSchema));
      const args = { name: 'v1_list_brands', arguments: {} };
      const x = (await modern.callTool(args)) as any;
      const y = (await legacy.callTool(args)) as any;
      expect(x.structuredContent).toEqual(y.structuredContent);
    } finally {
      await modern.close();
      await legacy.close();
    }
  });

  it("a signed-in user's agent works on 2026-07-28 with its OAuth token", async () => {
    const client = await modernClient({ authorization: `Bearer ${userToken}` });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('list_stories');
      const r = (await client.callTool({ name: 'list_brands', arguments: {} })) as any;
      expect(r.isError).toBeUndefined();
      expect(r.structuredContent.brands.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});

describe('2026-07-28 on the wire', () => {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const post = (headers: Record<string, string>, body: object) =>
    fetch(`${svc.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': w.keys.owner,
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, ...body }),
    });
  const modernHeaders = (method: string, name?: string) => ({
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...(name && { 'mcp-name': name }),
  });

  it('answers server/discover and marks results complete', async () => {
    const r = await post(modernHeaders('server/discover'), {
      method: 'server/discover',
      params: { _meta: envelope },
    });
    expect(r.status).toBe(200);
    const body = (await r.json()) as any;
    expect(body.result.supportedVersions).toContain(MODERN);
    expect(body.result.resultType).toBe('complete');
    expect(body.result.capabilities.tools).toBeDefined();
    const call = await post(modernHeaders('tools/call', 'v1_list_brands'), {
      method: 'tools/call',
      params: { name: 'v1_list_brands', arguments: {}, _meta: envelope },
    });
    const result = ((await call.json()) as any).result;
    expect(result.resultType).toBe('complete');
    expect(result.structuredContent.brands.length).toBeGreaterThan(0);
  });

  it('answers invalid params with -32602, never an internal error, on both eras', async () => {
    const bad = { name: 'v1_list_brands', arguments: 'not an object' };
    const modern = await post(modernHeaders('tools/call', 'v1_list_brands'), {
      method: 'tools/call',
      params: { ...bad, _meta: envelope },
    });
    const legacy = await post(
      { 'mcp-protocol-version': '2025-11-25' },
      {
        method: 'tools/call',
        params: bad,
      },
    );
    for (const r of [modern, legacy]) {
      const body = (await r.json()) as any;
      expect(body.error.code).toBe(-32602);
    }
    const unknown = await post(modernHeaders('tools/call', 'v1_nonsense'), {
      method: 'tools/call',
      params: { name: 'v1_nonsense', arguments: {}, _meta: envelope },
    });
    expect(((await unknown.json()) as any).error).toEqual({
      code: -32602,
      message: 'unknown tool: v1_nonsense',
    });
  });

  it('refuses a header that contradicts the body, and an unknown version, naming the supported ones', async () => {
    const mismatch = await post(modernHeaders('tools/list'), {
      method: 'tools/call',
      params: { name: 'v1_list_brands', arguments: {}, _meta: envelope },
    });
    expect(mismatch.status).toBe(400);
    expect(((await mismatch.json()) as any).error.code).toBe(-32020);
    const future = await post(
      { ...modernHeaders('tools/list'), 'mcp-protocol-version': '2099-01-01' },
      {
        method: 'tools/list',
        params: { _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      },
    );
    const body = (await future.json()) as any;
    expect(body.error.code).toBe(-32022);
    expect(body.error.data.supported).toContain(MODERN);
  });

  it('authenticates before the protocol: no credential is a 401 on this era too', async () => {
    const r = await fetch(`${svc.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...modernHeaders('tools/list') },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: envelope },
      }),
    });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=/);
  });
});

const INSPECTOR = fileURLToPath(
  new URL(
    '../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js',
    import.meta.url,
  ),
);

/** The MCP Inspector's CLI, with its own home (its catalog and stored auth stay there). */
async function inspector(...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [INSPECTOR, '--cli', `${svc.url}/mcp`, '-q', ...args],
      { env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') } },
    );
    return { code: 0, stdout, stderr };
  } catch (e) {
    const { code, stdout, stderr } = e as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

describe('MCP Inspector (CLI)', () => {
  for (const era of ['legacy', 'modern']) {
    it(`lists the partner and user tools with nothing to report in --strict mode (${era})`, async () => {
      for (const header of [`x-api-key: ${w.keys.owner}`, `Authorization: Bearer ${userToken}`]) {
        const r = await inspector(
          '--protocol-era',
          era,
          '--header',
          header,
          '--method',
          'tools/list',
          '--strict',
        );
        expect(r.stderr, header).toBe('');
        expect(r.code, header).toBe(0);
        expect(JSON.parse(r.stdout).tools.length).toBeGreaterThan(8);
      }
    });

    it(`calls a tool and gets its structured answer (${era})`, async () => {
      const r = await inspector(
        '--protocol-era',
        era,
        '--header',
        `x-api-key: ${w.keys.owner}`,
        '--method',
        'tools/call',
        '--tool-name',
        'v1_get_story',
        '--tool-args-json',
        JSON.stringify({ brand: 'northwind.example', event_uri: w.stories.northwind }),
      );
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).structuredContent.story.event_uri).toBe(w.stories.northwind);
    });
  }
});

describe('browser-based clients (CORS)', () => {
  const WEB_CLIENT = 'http://localhost:6274';
  let web: TestService;
  beforeAll(async () => {
    web = await startService({ CORS_ORIGINS: WEB_CLIENT }, { runJobs: false });
    await seedWorld(web.app);
  });
  afterAll(() => web.close());

  const preflight = (path: string, origin: string) =>
    fetch(`${web.url}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
      },
    });

  it('an allowed origin is answered with CORS on /mcp and the OAuth endpoints', async () => {
    for (const path of ['/mcp', '/oauth/token', '/oauth/register']) {
      const r = await preflight(path, WEB_CLIENT);
      expect(r.status, path).toBe(204);
      expect(r.headers.get('access-control-allow-origin'), path).toBe(WEB_CLIENT);
      expect(r.headers.get('access-control-allow-headers'), path).toMatch(/mcp-protocol-version/);
    }
    // The challenge that starts sign-in is readable by the page.
    const challenged = await fetch(`${web.url}/mcp`, {
      method: 'POST',
      headers: { origin: WEB_CLIENT, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(challenged.status).toBe(401);
    expect(challenged.headers.get('access-control-allow-origin')).toBe(WEB_CLIENT);
    expect(challenged.headers.get('access-control-expose-headers')).toMatch(/www-authenticate/);
    const registered = await fetch(`${web.url}/oauth/register`, {
      method: 'POST',
      headers: { origin: WEB_CLIENT, 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [`${WEB_CLIENT}/oauth/callback`], client_name: 'Web' }),
    });
    expect(registered.status).toBe(201);
    expect(registered.headers.get('access-control-allow-origin')).toBe(WEB_CLIENT);
  });

  it('any other origin is refused before anything runs; public documents stay readable', async () => {
    for (const path of ['/mcp', '/oauth/token', '/oauth/register']) {
      expect((await preflight(path, 'http://evil.example')).status, path).toBe(403);
    }
    const post = await fetch(`${web.url}/mcp`, {
      method: 'POST',
      headers: {
        origin: 'http://evil.example',
        'x-api-key': w.keys.owner,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(post.status).toBe(403);
    expect(post.headers.get('access-control-allow-origin')).toBeNull();
    const discovery = await fetch(`${web.url}/.well-known/oauth-authorization-server`, {
      headers: { origin: 'http://evil.example' },
    });
    expect(discovery.status).toBe(200);
  });
});

describe('MCP Inspector (CLI) with its own OAuth sign-in', () => {
  for (const era of ['legacy', 'modern']) {
    it(`registers, sends the person to sign in, and lists the user's tools (${era})`, async () => {
      const callback = `http://127.0.0.1:${await freePort()}/oauth/callback`;
      const child = spawn(
        process.execPath,
        [
          INSPECTOR,
          '--cli',
          `${svc.url}/mcp`,
          '-q',
          '--protocol-era',
          era,
          '--method',
          'tools/list',
          '--callback-url',
          callback,
        ],
        {
          env: {
            ...process.env,
            HOME: home,
            MCP_CATALOG_PATH: join(home, `oauth-${era}.json`),
            // No terminal here: it prints the sign-in URL instead of asking.
            MCP_AUTO_OPEN_ENABLED: 'true',
            BROWSER: 'true',
            MCP_INSPECTOR_SECRET_STORE: 'memory',
          },
        },
      );
      let stdout = '';
      child.stdout.on('data', (d) => {
        stdout += d;
      });
      const exited = once(child, 'exit');
      let stderr = '';
      for await (const line of createInterface({ input: child.stderr })) {
        stderr += `${line}\n`;
        const url = /Please navigate to: (\S+)/.exec(line)?.[1];
        if (!url) continue;
        const browser = new OAuthBrowser({ email: 'owner@northwind.example', password: PASSWORD });
        await fetch(await browser.authorize(url, callback));
      }
      const [code] = await exited;
      expect(code, stderr).toBe(0);
      const names = (JSON.parse(stdout).tools as { name: string }[]).map((t) => t.name);
      expect(names).toContain('list_stories');
    });
  }
});

/**
 * The registrations real clients send (their documented redirect URIs and auth methods),
 * each signing in and calling /mcp. docs/clients/ has each client's configuration.
 */
describe('client-shaped registration and sign-in', () => {
  const SHAPES: [string, Record<string, unknown>][] = [
    [
      'Cursor',
      {
        client_name: 'Cursor',
        redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
    ],
    [
      'Claude (claude.ai, Claude Desktop)',
      {
        client_name: 'Claude',
        redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    [
      'Claude Code',
      {
        client_name: 'Claude Code (stories)',
        redirect_uris: ['http://localhost:54212/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
    ],
    [
      'ChatGPT',
      {
        client_name: 'ChatGPT',
        redirect_uris: ['https://chatgpt.com/connector_platform_oauth_redirect'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    [
      'VS Code',
      {
        client_name: 'Visual Studio Code',
        redirect_uris: ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
    ],
  ];

  it.each(SHAPES)('%s registers, signs in and calls /mcp', async (_name, metadata) => {
    const registered = await fetch(`${svc.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(metadata),
    });
    expect(registered.status, await registered.clone().text()).toBe(201);
    const client = (await registered.json()) as { client_id: string; client_secret?: string };
    // A secret exactly when the client asked to authenticate with one.
    expect(client.client_secret !== undefined).toBe(metadata.token_endpoint_auth_method !== 'none');
    const redirect = (metadata.redirect_uris as string[])[0]!;
    const { verifier, challenge } = pkcePair();
    const browser = new OAuthBrowser({ email: 'owner@northwind.example', password: PASSWORD });
    const back = await browser.authorize(
      authorizeUrl(svc.url, {
        clientId: client.client_id,
        redirectUri: redirect,
        challenge,
        state: 'st',
      }),
      redirect,
    );
    expect(back.searchParams.get('state')).toBe('st');
    const token = await redeemCode(svc.url, {
      code: back.searchParams.get('code')!,
      redirectUri: redirect,
      clientId: client.client_id,
      verifier,
      clientSecret: client.client_secret,
    });
    expect(token.status).toBe(200);
    const { access_token, refresh_token } = (await token.json()) as Record<string, string>;
    expect(refresh_token).toBeTruthy();
    const mcp = await modernClient({ authorization: `Bearer ${access_token}` });
    try {
      expect((await mcp.listTools()).tools.map((t) => t.name)).toContain('list_stories');
    } finally {
      await mcp.close();
    }
  });
});
