import type { IncomingHttpHeaders } from 'node:http';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateKey } from '../../src/auth/authenticate-key.js';
import { sdkAnswers } from '../../src/mcp/mcp-route.js';
import { serverInfo, toolsFor } from '../../src/mcp/mcp-server.js';
import { answerPlainCall, plainToolCall } from '../../src/mcp/plain-tool-call.js';
import type { Actor } from '../../src/policy.js';
import { startService, type TestService } from '../support/harness.js';
import { seedWorld, type World } from '../support/world.js';

/**
 * The plain tool calls /mcp answers itself (src/mcp/plain-tool-call.ts) must get the very
 * answer the SDK gives: every request below, the clients' own shapes and one change at a
 * time away from them, goes to both; where the plain path takes it, the SDK must answer
 * 200 with the same bytes. And the shapes the SDK clients send must be taken.
 */
let svc: TestService;
let w: World;
let actor: Actor;
let sdk: ReturnType<typeof sdkAnswers>;
const MODERN = '2026-07-28';

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_PER_MINUTE: '100000' }, { runJobs: false });
  w = await seedWorld(svc.app);
  ({ actor } = await authenticateKey(svc.app, w.keys.owner, '127.0.0.1'));
  sdk = sdkAnswers(svc.app, serverInfo(svc.app));
});
afterAll(async () => {
  await sdk.close();
  await svc.close();
});

interface Case {
  label: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'client', version: '2.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A tools/call as the 1.x SDK client sends it on 2025-11-25, and as the 2.x on 2026-07-28. */
function clientShape(modern: boolean, name: string, args: unknown): Case {
  const headers: IncomingHttpHeaders = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': modern ? MODERN : '2025-11-25',
    ...(modern && { 'mcp-method': 'tools/call', 'mcp-name': name }),
  };
  const params = { name, arguments: args, ...(modern && { _meta: ENVELOPE }) };
  return {
    label: `${modern ? 'modern' : 'legacy'} ${name}`,
    headers,
    body: { method: 'tools/call', params, jsonrpc: '2.0', id: 1 },
  };
}

/** The case with one thing changed. */
function variant(c: Case, label: string, change: (c: Case) => void): Case {
  const copy = structuredClone(c);
  change(copy);
  return { ...copy, label: `${c.label}: ${label}` };
}

function variantsOf(c: Case, modern: boolean): Case[] {
  const params = (x: Case) => x.body.params as Record<string, unknown>;
  const meta = (x: Case) => params(x)._meta as Record<string, unknown>;
  const out: Case[] = [c];
  const header = (name: string, value: string | undefined) =>
    out.push(
      variant(c, `${name}: ${value}`, (x) => {
        if (value === undefined) delete x.headers[name];
        else x.headers[name] = value;
      }),
    );
  for (const v of [undefined, ...SUPPORTED_PROTOCOL_VERSIONS, MODERN, '2099-01-01', 'x']) {
    header('mcp-protocol-version', v);
  }
  for (const v of [
    undefined,
    '*/*',
    'application/json',
    'text/event-stream',
    'text/event-stream, application/json',
    'application/json;q=0.1, text/event-stream',
    'text/html',
    '',
  ]) {
    header('accept', v);
  }
  for (const v of ['application/json; charset=utf-8', 'text/plain', 'application/jsonx']) {
    header('content-type', v);
  }
  header('mcp-method', modern ? 'tools/list' : 'tools/call');
  header('mcp-method', undefined);
  header('mcp-name', 'v1_list_brands');
  header('mcp-name', undefined);
  const body = (label: string, change: (x: Case) => void) => out.push(variant(c, label, change));
  for (const id of [0, 'abc', '', 1.5, -7, null, 2 ** 60, { a: 1 }]) {
    body(`id ${JSON.stringify(id)}`, (x) => {
      x.body.id = id;
    });
  }
  body('no id', (x) => {
    delete x.body.id;
  });
  body('jsonrpc 1.0', (x) => {
    x.body.jsonrpc = '1.0';
  });
  body('an extra member', (x) => {
    x.body.extra = true;
  });
  body('tools/list', (x) => {
    x.body.method = 'tools/list';
  });
  body('a task', (x) => {
    params(x).task = { ttl: 1000 };
  });
  body('an unknown tool', (x) => {
    params(x).name = 'v1_nothing';
  });
  body('a user tool', (x) => {
    params(x).name = 'get_story';
  });
  for (const args of [undefined, null, [], 'x', {}]) {
    body(`arguments ${JSON.stringify(args)}`, (x) => {
      params(x).arguments = args;
    });
  }
  if (!modern) {
    body('an empty _meta', (x) => {
      params(x)._meta = {};
    });
    body('a progress token', (x) => {
      params(x)._meta = { progressToken: 'p1' };
    });
    return out;
  }
  body('no _meta', (x) => {
    delete params(x)._meta;
  });
  body('another version in _meta', (x) => {
    meta(x)['io.modelcontextprotocol/protocolVersion'] = '2025-11-25';
  });
  body('a client capability', (x) => {
    meta(x)['io.modelcontextprotocol/clientCapabilities'] = { elicitation: {} };
  });
  body('a client title', (x) => {
    meta(x)['io.modelcontextprotocol/clientInfo'] = { name: 'c', version: '1', title: 'C' };
  });
  body('no client info', (x) => {
    delete meta(x)['io.modelcontextprotocol/clientInfo'];
  });
  body('a client version number', (x) => {
    meta(x)['io.modelcontextprotocol/clientInfo'] = { name: 'c', version: 1 };
  });
  body('a progress token', (x) => {
    meta(x).progressToken = 'p1';
  });
  return out;
}

async function bothWays(c: Case) {
  const plain = plainToolCall(c.headers, c.body, toolsFor(actor));
  const sdkResponse = await sdk.answer(actor, c.headers, '/mcp', c.body);
  const sdkBody = await sdkResponse.text();
  if (!plain) return { plain: undefined, sdkStatus: sdkResponse.status, sdkBody };
  return {
    plain: await answerPlainCall(svc.app, actor, plain, serverInfo(svc.app)),
    sdkStatus: sdkResponse.status,
    sdkType: sdkResponse.headers.get('content-type'),
    sdkBody,
  };
}

describe('plain tool calls on /mcp, against the SDK', () => {
  for (const modern of [false, true]) {
    it(`${modern ? '2026-07-28' : '2025-era'}: wherever the plain path answers, it answers as the SDK`, async () => {
      const shapes = [
        clientShape(modern, 'v1_get_story', {
          brand: 'northwind.example',
          event_uri: w.stories.northwind,
        }),
        clientShape(modern, 'v1_list_stories', { brand: 'acme.com', limit: 5 }),
        clientShape(modern, 'v1_list_brands', {}),
        // Refusals are tool results too: an unknown brand, an invalid argument.
        clientShape(modern, 'v1_get_story', { brand: 'globex.com', event_uri: 'evt_x' }),
        clientShape(modern, 'v1_list_stories', { brand: 'acme.com', limit: 'many' }),
      ];
      let taken = 0;
      let cases = 0;
      for (const shape of shapes) {
        for (const c of variantsOf(shape, modern)) {
          cases++;
          const r = await bothWays(c);
          if (r.plain === undefined) continue;
          taken++;
          expect({ case: c.label, status: r.sdkStatus, type: r.sdkType }).toEqual({
            case: c.label,
            status: 200,
            type: 'application/json',
          });
          expect({ case: c.label, body: r.plain }).toEqual({ case: c.label, body: r.sdkBody });
        }
        // The shape the SDK client sends is always taken.
        expect(plainToolCall(shape.headers, shape.body, toolsFor(actor))).toBeDefined();
      }
      // Some of the changes are harmless (another id, no accept header), most are not.
      expect(taken).toBeGreaterThan(shapes.length);
      expect(taken).toBeLessThan(cases / 2);
    });
  }

  it('over HTTP, a plain call and one the SDK answers get the same response', async () => {
    const post = (body: unknown) =>
      fetch(`${svc.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          'x-api-key': w.keys.owner,
        },
        body: JSON.stringify(body),
      });
    const shape = clientShape(false, 'v1_get_story', {
      brand: 'northwind.example',
      event_uri: w.stories.northwind,
    });
    // An empty _meta changes nothing in the answer, but only the SDK takes it.
    const withMeta = variant(shape, 'empty _meta', (x) => {
      (x.body.params as Record<string, unknown>)._meta = {};
    });
    expect(plainToolCall(withMeta.headers, withMeta.body, toolsFor(actor))).toBeUndefined();
    const [a, b] = [await post(shape.body), await post(withMeta.body)];
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.headers.get('content-type')).toBe(b.headers.get('content-type'));
    expect(await a.text()).toBe(await b.text());
  });
});
