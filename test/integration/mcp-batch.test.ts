import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/domain/api-key-admin.js';
import { startService, type TestService } from '../support/harness.js';
import { seedWorld, type World } from '../support/world.js';

/**
 * One window per key, whatever the door: a JSON-RPC batch on /mcp would run many calls on
 * one count, so batches are refused whole (MCP 2025-06-18 removed them), and REST and MCP
 * calls of a key count together.
 */
let svc: TestService;
let w: World;
const LIMIT = 10;

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_PER_MINUTE: String(LIMIT) }, { runJobs: false });
  w = await seedWorld(svc.app);
});
afterAll(() => svc.close());

const mcp = (key: string, body: unknown) =>
  fetch(`${svc.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-api-key': key,
    },
    body: JSON.stringify(body),
  });

const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('JSON-RPC batches on /mcp', () => {
  it('a 100-call batch is a 400 JSON-RPC error and runs none of its calls', async () => {
    const batch = Array.from({ length: 100 }, (_, i) =>
      call(i + 1, 'v1_post_brand_note', {
        brand: 'northwind.example',
        event_uri: w.stories.northwind,
        text: `Batched statement ${i}`,
      }),
    );
    // A key of its own: its rate-limit window counts this request alone.
    const { key } = await createKey(svc.app, {
      accountId: w.accounts.agency,
      role: 'owner',
      scope: null,
      actor: 'test',
    });
    const r = await mcp(key, batch);
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await r.json()) as any;
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(body.error.message).toMatch(/batch/);
    expect(await svc.app.db.selectFrom('brand_notes').select('text').execute()).toEqual([]);
    // The refused request counted once, as any request does.
    expect(r.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 1));
  });

  it('a batch of one is refused too; a single call still runs', async () => {
    const one = await mcp(w.keys.owner, [call(1, 'v1_list_brands', {})]);
    expect(one.status).toBe(400);
    const single = await mcp(w.keys.owner, call(2, 'v1_list_brands', {}));
    expect(single.status).toBe(200);
    expect(((await single.json()) as any).result.isError).toBeFalsy();
  });
});

describe('one rate-limit window per key across REST and MCP', () => {
  it('REST and MCP calls of a key count together; the next call on either door is a 429', async () => {
    const key = w.keys.admin;
    for (let i = 0; i < LIMIT; i++) {
      const r =
        i % 2 === 0
          ? await svc.request('GET', '/v1/brands', { key })
          : await mcp(key, call(i, 'v1_list_brands', {}));
      expect(r.status, `call ${i}`).toBe(200);
      expect(r.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 1 - i));
    }
    const rest = await svc.request('GET', '/v1/brands', { key });
    expect(rest.status).toBe(429);
    expect(rest.body).toEqual({ error: 'rate limit exceeded' });
    const viaMcp = await mcp(key, call(99, 'v1_list_brands', {}));
    expect(viaMcp.status).toBe(429);
    // A JSON-RPC error for the call's id that names the wait, beside the status and header.
    const wait = Number(viaMcp.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(await viaMcp.json()).toEqual({
      jsonrpc: '2.0',
      id: 99,
      error: {
        code: -32000,
        message: `rate limit exceeded: retry after ${wait} second${wait === 1 ? '' : 's'}`,
        data: { error: 'rate limit exceeded', status: 429, retry_after: wait },
      },
    });
    // Another key's window is its own.
    expect((await svc.request('GET', '/v1/brands', { key: w.keys.member })).status).toBe(200);
  });
});

describe('a rate-limited agent is told how long to wait', () => {
  /** A key of its own, its window spent on REST after the client connected. */
  const spentKey = async () => {
    const { key } = await createKey(svc.app, {
      accountId: w.accounts.agency,
      role: 'owner',
      scope: null,
      actor: 'test',
    });
    return {
      key,
      spend: async () => {
        while ((await svc.request('GET', '/v1/brands', { key })).status !== 429) {}
      },
    };
  };
  const url = () => new URL(`${svc.url}/mcp`);

  it('the SDK 2.x client (2026-07-28) throws an error that names the wait', async () => {
    const { key, spend } = await spentKey();
    const client = new ModernClient(
      { name: 'stories-test', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new ModernTransport(url(), { requestInit: { headers: { 'x-api-key': key } } }),
    );
    await spend();
    await expect(client.callTool({ name: 'v1_list_brands', arguments: {} })).rejects.toThrow(
      /rate limit exceeded: retry after \d+ seconds?/,
    );
    await client.close();
  });

  it('the SDK 1.x client (2025-11-25) too', async () => {
    const { key, spend } = await spentKey();
    const client = new LegacyClient({ name: 'stories-test', version: '1.0.0' });
    await client.connect(
      new LegacyTransport(url(), { requestInit: { headers: { 'x-api-key': key } } }),
    );
    await spend();
    await expect(client.callTool({ name: 'v1_list_brands', arguments: {} })).rejects.toThrow(
      /rate limit exceeded: retry after \d+ seconds?/,
    );
    await client.close();
  });
});
