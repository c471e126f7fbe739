import type { IncomingHttpHeaders } from 'node:http';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateKey } from '../../src/auth/authenticate-key.js';
import { activeMember } from '../../src/domain/accounts.js';
import { sdkAnswers } from '../../src/mcp/mcp-route.js';
import { serverInfo, toolsFor } from '../../src/mcp/mcp-server.js';
import { partnerTools, peoplePartnerTools } from '../../src/mcp/partner-tools.js';
import { plainCallAnswers, plainToolCall } from '../../src/mcp/plain-tool-call.js';
import { userTools } from '../../src/mcp/user-tools.js';
import { memberActor } from '../../src/oauth/authenticate-token.js';
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
let keyActor: Actor;
let userActor: Actor;
let sdk: ReturnType<typeof sdkAnswers>;
let answerPlain: ReturnType<typeof plainCallAnswers>;
const MODERN = '2026-07-28';

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_PER_MINUTE: '100000' }, { runJobs: false });
  w = await seedWorld(svc.app);
  ({ actor: keyActor } = await authenticateKey(svc.app, w.keys.owner, '127.0.0.1'));
  // A signed-in member, as /mcp sees one with an OAuth token (authenticate-token.ts).
  const owner = await svc.app.db
    .selectFrom('users')
    .select('id')
    .where('email', '=', 'owner@northwind.example')
    .executeTakeFirstOrThrow();
  const member = await activeMember(svc.app, w.accounts.agency, owner.id);
  userActor = memberActor(member!, new Date());
  sdk = sdkAnswers(svc.app, serverInfo(svc.app));
  answerPlain = plainCallAnswers(svc.app, serverInfo(svc.app));
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

async function bothWays(actor: Actor, c: Case) {
  const plain = plainToolCall(c.headers, c.body, toolsFor(actor));
  const sdkResponse = await sdk.answer(actor, c.headers, '/mcp', c.body);
  const sdkBody = await sdkResponse.text();
  if (!plain) return { plain: undefined, sdkStatus: sdkResponse.status, sdkBody };
  return {
    plain: await answerPlain(actor, plain),
    sdkStatus: sdkResponse.status,
    sdkType: sdkResponse.headers.get('content-type'),
    sdkBody,
  };
}

/** The calls compared, per caller: answers, refusals (an unknown brand, an invalid argument). */
function shapesFor(kind: 'key' | 'user', modern: boolean) {
  const prefix = kind === 'key' ? 'v1_' : '';
  const story = { brand: 'northwind.example', event_uri: w.stories.northwind };
  return [
    clientShape(modern, `${prefix}get_story`, story),
    clientShape(modern, `${prefix}list_stories`, { brand: 'acme.com', limit: 5 }),
    clientShape(modern, `${prefix}list_brands`, {}),
    clientShape(modern, `${prefix}get_story`, { brand: 'globex.com', event_uri: 'evt_x' }),
    clientShape(modern, `${prefix}list_stories`, { brand: 'acme.com', limit: 'many' }),
    ...(kind === 'user' ? [clientShape(modern, 'v1_get_story', story)] : []),
  ];
}

describe('plain tool calls on /mcp, against the SDK', () => {
  const callers = {
    'an API key': () => ({ actor: keyActor, kind: 'key' as const }),
    'a signed-in member': () => ({ actor: userActor, kind: 'user' as const }),
    'a member on a plan without API access': () => ({
      actor: { ...userActor, plan: 'pro' as const },
      kind: 'user' as const,
    }),
  };
  for (const [who, caller] of Object.entries(callers)) {
    for (const modern of [false, true]) {
      it(`${who}, ${modern ? '2026-07-28' : '2025-era'}: wherever the plain path answers, it answers as the SDK`, async () => {
        const { actor, kind } = caller();
        const shapes = shapesFor(kind, modern);
        let taken = 0;
        let cases = 0;
        for (const shape of shapes) {
          for (const c of variantsOf(shape, modern)) {
            cases++;
            const r = await bothWays(actor, c);
            if (r.plain === undefined) continue;
            taken++;
            expect({ case: c.label, status: r.sdkStatus, type: r.sdkType }).toEqual({
              case: c.label,
              status: 200,
              type: 'application/json',
            });
            expect({ case: c.label, body: r.plain }).toEqual({ case: c.label, body: r.sdkBody });
          }
        }
        // The shapes the SDK clients send are taken (a tool outside the caller's set is not).
        const inSet = shapes.filter((s) =>
          toolsFor(actor).byName.has((s.body.params as { name: string }).name),
        );
        expect(inSet.length).toBeGreaterThanOrEqual(5);
        for (const shape of inSet) {
          expect(plainToolCall(shape.headers, shape.body, toolsFor(actor))).toBeDefined();
        }
        // Some of the changes are harmless (another id, no accept header), most are not.
        expect(taken).toBeGreaterThan(inSet.length);
        expect(taken).toBeLessThan(cases / 2);
      });
    }
  }

  it('every tool answers an object, which the plain path splices in as structured content', () => {
    for (const tool of [...partnerTools, ...userTools]) {
      expect({ tool: tool.name, type: tool.outputSchema?.type }).toEqual({
        tool: tool.name,
        type: 'object',
      });
    }
    // A person's twin of their own tool has no output schema; its answer is an object too.
    for (const tool of peoplePartnerTools) {
      expect([undefined, 'object'], tool.name).toContain(tool.outputSchema?.type);
    }
  });

  for (const modern of [false, true]) {
    it(`over HTTP, ${modern ? '2026-07-28' : '2025-era'}: a plain call and one the SDK answers get the same response`, async () => {
      const post = (c: Case) =>
        fetch(`${svc.url}/mcp`, {
          method: 'POST',
          headers: { ...(c.headers as Record<string, string>), 'x-api-key': w.keys.owner },
          body: JSON.stringify(c.body),
        });
      const shape = clientShape(modern, 'v1_get_story', {
        brand: 'northwind.example',
        event_uri: w.stories.northwind,
      });
      // A change that leaves the answer as it is, but that only the SDK takes: an empty
      // _meta (2025), a client title (2026).
      const sdkOnly = variant(shape, 'SDK only', (x) => {
        const params = x.body.params as Record<string, any>;
        if (modern) params._meta['io.modelcontextprotocol/clientInfo'].title = 'Client';
        else params._meta = {};
      });
      expect(plainToolCall(sdkOnly.headers, sdkOnly.body, toolsFor(keyActor))).toBeUndefined();
      const [a, b] = [await post(shape), await post(sdkOnly)];
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      // Every header alike but the date and the key's remaining calls (one more each time).
      const headers = (r: Response) =>
        [...r.headers].filter(([name]) => name !== 'date' && name !== 'ratelimit-remaining');
      expect(headers(a)).toEqual(headers(b));
      expect(await a.text()).toBe(await b.text());
    });
  }
});
