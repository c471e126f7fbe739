import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe } from '../../src/domain/billing-admin.js';
import { restOperations } from '../../src/operations/index.js';
import type { RestOperation } from '../../src/operations/operation.js';
import { startService, type TestService } from '../support/harness.js';
import { expectFullyDescribed } from '../support/mcp-tools.js';
import { seedWorld, type World } from '../support/world.js';

/** The v1_ partner tools over /mcp with a partner API key, through the official SDK client. */
let svc: TestService;
let w: World;
let n = 200;
const BRAND = 'northwind.example';

beforeAll(async () => {
  // Each connection also lists the tools: more requests per key than the default minute allows.
  svc = await startService({ RATE_LIMIT_PER_MINUTE: '2000' }, { runJobs: false });
  w = await seedWorld(svc.app);
  await subscribe(svc.app, w.accounts.agency, 'test');
  // The month's included unit is used here, so every unlock below is metered alike.
  await svc.request('POST', '/v1/advisory', {
    key: w.keys.owner,
    body: { brand: BRAND, event_uri: w.stories.northwind },
  });
});
afterAll(() => svc.close());

async function connect(headers: Record<string, string>) {
  const client = new Client({ name: 'stories-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { requestInit: { headers } }),
  );
  // As agents do: the client then checks every structured result against the tool's schema.
  await client.listTools();
  return client;
}

/** A fresh story of the agency's own brand, in the state an operation needs. */
let clients = 0;

async function prepare(op: RestOperation): Promise<Record<string, unknown>> {
  if (op.id === 'drop_delegation') return { brand: await w.clientBrand() };
  if (op.id === 'create_story_from_url') {
    return { brand: BRAND, url: `https://news.example/${n++}` };
  }
  if (op.id === 'get_story_from_url_job') {
    const r = await svc.request('POST', '/v1/stories/from-url', {
      key: w.keys.owner,
      body: { brand: BRAND, url: `https://news.example/${n++}` },
    });
    return { brand: BRAND, job: r.body.job };
  }
  if (op.id === 'create_delegation_invite') {
    return { brand: `prospect-${++clients}.example`, return_url: 'https://partner.example/back' };
  }
  if (op.id === 'revoke_delegation_invite') {
    const r = await svc.request('POST', '/v1/delegation-invites', {
      key: w.keys.owner,
      body: { brand: `prospect-${++clients}.example`, return_url: 'https://partner.example/back' },
    });
    return { token: r.body.token };
  }
  const event_uri = await w.story(BRAND, n++);
  const story = { brand: BRAND, event_uri };
  const post = (path: string, body: object) =>
    svc.request('POST', path, { key: w.keys.owner, body: { ...story, ...body } });
  const teammate = 'owner@northwind.example';
  const needsUnlock = [
    'add_story_context',
    'apply_advisory_proposal',
    'dismiss_advisory_proposal',
    'assign_phase',
    'unassign_phase',
    'complete_phase',
  ];
  if (needsUnlock.includes(op.id)) await post('/v1/advisory', {});
  if (['apply_advisory_proposal', 'dismiss_advisory_proposal'].includes(op.id)) {
    await post('/v1/story/context', { context: 'The recall is over.' });
    await svc.app.jobs.drain();
  }
  if (op.id === 'unassign_phase')
    await post('/v1/story/phase-assign', { phase: 1, assignee: teammate });
  if (op.id === 'unassign_story') await post('/v1/story/assign', { assignee: teammate });
  if (op.id === 'delete_brand_note') await post('/v1/brand-note', { text: 'Our statement' });
  const inputs: Record<string, Record<string, unknown>> = {
    list_brands: {},
    list_stories: { brand: BRAND, limit: 5 },
    list_mentions: { brand: BRAND, limit: 5 },
    search_stories: {
      brand: BRAND,
      q: 'northwind',
      severity: 'low,medium,high,critical',
      limit: 5,
    },
    get_story: story,
    post_brand_note: { ...story, text: 'Our statement' },
    delete_brand_note: story,
    list_delegations: {},
    grant_delegation: {},
    create_api_key: {},
    trigger_advisory: story,
    add_story_context: { ...story, context: 'The recall is over.' },
    apply_advisory_proposal: story,
    dismiss_advisory_proposal: story,
    assign_story: { ...story, assignee: teammate },
    unassign_story: story,
    assign_phase: { ...story, phase: 1, assignee: teammate },
    unassign_phase: { ...story, phase: 1 },
    complete_phase: { ...story, phase: 1, comment: 'done' },
    create_share: { ...story, access: 'public', mode: 'compact', listed: true },
  };
  const input = inputs[op.id];
  if (!input) throw new Error(`add an input for ${op.id} to the MCP parity table`);
  return input;
}

/** `value` with only the keys `like` has, recursively (arrays element by element). */
function project(value: unknown, like: unknown): unknown {
  if (Array.isArray(value) && Array.isArray(like)) return value.map((v, i) => project(v, like[i]));
  if (value && like && typeof value === 'object' && typeof like === 'object') {
    const v = value as Record<string, unknown>;
    const l = like as Record<string, unknown>;
    return Object.fromEntries(Object.keys(l).map((k) => [k, project(v[k], l[k])]));
  }
  return value;
}

/** What differs between two runs on two fresh stories: ids, times and generated URLs. */
function normalize(value: unknown, input: Record<string, unknown>): string {
  let text = JSON.stringify(value);
  if (typeof input.event_uri === 'string') text = text.replaceAll(input.event_uri, '<event>');
  return text
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, '<time>')
    .replace(/chk_[a-z0-9]+/g, '<checkout>')
    .replace(/evt_[a-z0-9]+/g, '<event>')
    .replace(/story number \d+/g, 'story number <n>')
    .replace(/northwind\/\d+/g, 'northwind/<n>')
    .replace(/"next_cursor":"[^"]+"/g, '"next_cursor":"<cursor>"')
    .replace(/inv_[A-Za-z0-9_-]{43}/g, '<invite>')
    .replace(/job_[a-z0-9]+/g, '<job>')
    .replace(/\/s\/[A-Za-z0-9_-]{24}/g, '/s/<share>')
    .replace(/(client|prospect)-\d+\.example/g, '<client>');
}

describe('MCP with a partner API key', () => {
  it('lists exactly the v1_ tools, each fully described', async () => {
    const client = await connect({ 'x-api-key': w.keys.owner });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(restOperations.map((o) => `v1_${o.id}`).sort());
    expectFullyDescribed(tools);
    // Each with the bar a key must meet, and the list short enough for an agent's context.
    expect(tools.find((t) => t.name === 'v1_create_delegation_invite')?.description).toContain(
      'Needs the agency plan, the owner or admin role and a full-scope key.',
    );
    expect(JSON.stringify({ tools }).length).toBeLessThan(40_000);
    await client.close();
  });

  it('v1_list_stories rows carry the working state (spec 2.1), REST rows do not', async () => {
    const client = await connect({ 'x-api-key': w.keys.owner });
    const r = (await client.callTool({
      name: 'v1_list_stories',
      arguments: { brand: BRAND, limit: 200 },
    })) as unknown as { structuredContent: { stories: Record<string, unknown>[] } };
    await client.close();
    const row = r.structuredContent.stories.find((s) => s.event_uri === w.stories.northwind)!;
    expect(row).toMatchObject({
      status: 'new',
      assessment: expect.any(String),
      spread: 'contained',
      assignee: null,
      unlocked: true,
      last_activity_at: expect.stringMatching(/Z$/),
    });
    const rest = await svc.request('GET', '/v1/stories', {
      key: w.keys.owner,
      query: { brand: BRAND },
    });
    expect(Object.keys(rest.body.stories[0]).sort()).toEqual([
      'detected_at',
      'event_uri',
      'severity',
      'title',
    ]);
  });

  it('also takes the key as Authorization: Bearer', async () => {
    const client = await connect({ authorization: `Bearer ${w.keys.owner}` });
    expect((await client.listTools()).tools.length).toBe(restOperations.length);
    await client.close();
  });

  describe.each(restOperations.map((op) => [op.id, op] as const))('v1_%s', (_id, op) => {
    it('answers what REST answers on the same fresh data', async () => {
      const restInput = await prepare(op);
      const mcpInput = await prepare(op);
      const rest =
        op.rest.method === 'POST'
          ? await svc.request('POST', op.rest.path, { key: w.keys.owner, body: restInput })
          : await svc.request(op.rest.method, op.rest.path, {
              key: w.keys.owner,
              query: restInput as Record<string, string>,
            });
      const client = await connect({ 'x-api-key': w.keys.owner });
      const result = (await client.callTool({ name: `v1_${op.id}`, arguments: mcpInput })) as {
        isError?: boolean;
        content: { type: string; text: string }[];
        structuredContent: Record<string, unknown>;
      };
      await client.close();
      if (rest.status >= 400) {
        expect(result.isError).toBe(true);
        // The REST body, its status, and for a 403 the reason in words; the text says the same.
        expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
        const { reason, ...refusal } = result.structuredContent;
        expect(refusal).toEqual({ ...rest.body, status: rest.status });
        expect(reason === undefined).toBe(rest.status !== 403);
      } else {
        expect(result.isError ?? false).toBe(false);
        const answer = JSON.parse(result.content[0]!.text);
        expect(result.structuredContent).toEqual(answer);
        if (op.rest.tool) {
          // The spec lets this tool answer more than REST: its own schema, and REST's
          // answer inside it.
          expect(op.rest.tool.output.safeParse(answer).success).toBe(true);
          expect(normalize(project(answer, rest.body), mcpInput)).toBe(
            normalize(rest.body, restInput),
          );
        } else {
          expect(normalize(answer, mcpInput)).toBe(normalize(rest.body, restInput));
        }
      }
    });
  });

  it('refuses as REST refuses: a foreign brand is not found, a member cannot apply', async () => {
    const client = await connect({ 'x-api-key': w.keys.member });
    const foreign = (await client.callTool({
      name: 'v1_get_story',
      arguments: { brand: 'globex.com', event_uri: w.stories.globex },
    })) as { isError: boolean; content: { text: string }[]; structuredContent: unknown };
    expect(foreign.isError).toBe(true);
    expect(foreign.content[0]!.text).toBe('{"error":"not found","status":404}');
    expect(foreign.structuredContent).toEqual({ error: 'not found', status: 404 });
    const apply = (await client.callTool({
      name: 'v1_apply_advisory_proposal',
      arguments: { brand: BRAND, event_uri: w.stories.northwind },
    })) as { structuredContent: unknown };
    expect(apply.structuredContent).toEqual({
      error: "outside this key's brand scope",
      status: 403,
      reason: 'needs the owner or admin role',
    });
    await client.close();
  });
});

describe('/mcp refusals', () => {
  /** One JSON-RPC request, raw, with the headers a test chooses. */
  const rpc = (headers: Record<string, string>, method: string, params: object) =>
    fetch(`${svc.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
  const initialize = (headers: Record<string, string>, protocolVersion = '2025-11-25') =>
    rpc(headers, 'initialize', {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });

  it('answers 401 with WWW-Authenticate to a missing or revoked key', async () => {
    const cases: [Record<string, string>, string][] = [
      [{}, 'sign in with OAuth or send a partner API key'],
      [{ 'x-api-key': w.keys.revoked }, 'unknown or revoked API key'],
      [{ authorization: `Bearer ${w.keys.revoked}` }, 'unknown or revoked API key'],
    ];
    for (const [headers, error] of cases) {
      const r = await initialize(headers);
      expect(r.status).toBe(401);
      // No credential: where to get one; a refused one: that, and invalid_token (RFC 6750).
      const sent = Object.keys(headers).length > 0;
      expect(r.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${svc.url}/.well-known/oauth-protected-resource", scope="mcp"${sent ? ', error="invalid_token"' : ''}`,
      );
      expect(await r.json()).toEqual({ error });
    }
  });

  it('refuses a foreign Origin (DNS rebinding) and accepts its own', async () => {
    const bad = await initialize({ 'x-api-key': w.keys.owner, origin: 'http://evil.example' });
    expect(bad.status).toBe(403);
    const good = await initialize({ 'x-api-key': w.keys.owner, origin: svc.url });
    expect(good.status).toBe(200);
    const body = (await good.json()) as any;
    expect(body.result.protocolVersion).toBe('2025-11-25');
    expect(body.result.serverInfo.name).toBe('stories');
  });

  it('negotiates 2025-06-18 too, and answers GET and DELETE with 405', async () => {
    const r = await initialize({ 'x-api-key': w.keys.owner }, '2025-06-18');
    expect(((await r.json()) as any).result.protocolVersion).toBe('2025-06-18');
    for (const method of ['GET', 'DELETE']) {
      const x = await fetch(`${svc.url}/mcp`, { method, headers: { 'x-api-key': w.keys.owner } });
      expect(x.status).toBe(405);
      expect(x.headers.get('allow')).toBe('POST');
    }
  });

  it('answers JSON to a client that accepts only JSON, or anything', async () => {
    for (const accept of ['application/json', '*/*']) {
      const r = await initialize({ 'x-api-key': w.keys.owner, accept });
      expect(r.status, accept).toBe(200);
      expect(r.headers.get('content-type'), accept).toMatch(/^application\/json/);
      const body = (await r.json()) as any;
      // Who answers: a name, a title, a website and an icon for the client to show.
      expect(body.result.serverInfo).toMatchObject({
        name: 'stories',
        title: 'Stories',
        websiteUrl: svc.url,
        icons: [expect.objectContaining({ src: `${svc.url}/icon.svg`, mimeType: 'image/svg+xml' })],
      });
    }
    const icon = await fetch(`${svc.url}/icon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
  });

  it('names an unknown tool once, as invalid params', async () => {
    const r = await rpc({ 'x-api-key': w.keys.owner }, 'tools/call', {
      name: 'v1_nonsense',
      arguments: {},
    });
    const body = (await r.json()) as any;
    expect(body.error).toEqual({ code: -32602, message: 'unknown tool: v1_nonsense' });
  });
});
