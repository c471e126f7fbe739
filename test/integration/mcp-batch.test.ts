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
    expect(await viaMcp.json()).toEqual({ error: 'rate limit exceeded' });
    expect(Number(viaMcp.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another key's window is its own.
    expect((await svc.request('GET', '/v1/brands', { key: w.keys.member })).status).toBe(200);
  });
});
