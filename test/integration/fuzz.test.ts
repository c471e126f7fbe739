import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { partnerTools } from '../../src/mcp/partner-tools.js';
import type { ToolEntry } from '../../src/mcp/tool-call.js';
import { userTools } from '../../src/mcp/user-tools.js';
import { restOperations } from '../../src/operations/index.js';
import type { RestOperation } from '../../src/operations/operation.js';
import { startService, type TestService } from '../support/harness.js';
import { signIn } from '../support/oauth-browser.js';
import { PortalClient } from '../support/portal-client.js';
import { seedWorld, type World } from '../support/world.js';

/**
 * Hostile values in every field of every operation, generated from the registry's input
 * schemas (never a hand-written list of operations), over REST and over MCP with the
 * official SDK client. Whatever is sent: never a 5xx, never a hang, and every refusal is
 * a 4xx `{"error": string}` (REST) or a JSON-RPC error or an `isError` tool result (MCP).
 * Deterministic: the same cases in the same order every run.
 */
let svc: TestService;
let w: World;
const clients: { key?: Client; user?: Client } = {};
/** The credentials of each MCP caller, for the requests sent without the SDK. */
const credentials: { key: Record<string, string>; user: Record<string, string> } = {
  key: {},
  user: {},
};
const PASSWORD = 'correct horse battery';
/** Any single answer slower than this is a hang. */
const BOUND_MS = 10_000;

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_PER_MINUTE: '1000000' }, { runJobs: false });
  w = await seedWorld(svc.app);
  credentials.key = { 'x-api-key': w.keys.owner };
  clients.key = await mcpClient(credentials.key);
  const { access_token } = await signIn(svc.url, {
    email: 'owner@northwind.example',
    password: PASSWORD,
  });
  credentials.user = { authorization: `Bearer ${access_token}` };
  clients.user = await mcpClient(credentials.user);
});
afterAll(async () => {
  await clients.key?.close();
  await clients.user?.close();
  await svc.close();
});

async function mcpClient(headers: Record<string, string>) {
  const client = new Client({ name: 'fuzz', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { requestInit: { headers } }),
  );
  await client.listTools();
  return client;
}

// ---------------------------------------------------------------------------------------
// The cases, from the schemas.

const DEPTH = 10_000;
/** Hostile values as JSON text: some (deep nesting, `__proto__` keys) only exist as text. */
const HOSTILE: [string, string][] = [
  ['a number', '12345'],
  ['a negative number', '-1'],
  ['zero', '0'],
  ['a huge number', '1e308'],
  ['an unsafe integer', '9007199254740993'],
  ['a fraction', '1.5'],
  ['true', 'true'],
  ['null', 'null'],
  ['an empty object', '{}'],
  ['an empty array', '[]'],
  ['an array for a scalar', '["northwind.example","acme.com"]'],
  ['a 1 MB string', JSON.stringify('a'.repeat(1_000_000))],
  ['an empty string', '""'],
  ['blanks', JSON.stringify(' \t\u00a0\u3000')],
  ['a NUL', '"a\\u0000b"'],
  ['control characters', JSON.stringify('\u0001\u0007\u001b[31m\r\n\t\u007f\u0085x')],
  ['a lone high surrogate', '"a\\ud800b"'],
  ['a lone low surrogate', '"\\udfff"'],
  ['RTL and zero-width', JSON.stringify('\u202enorthwind.example\u200b\u200d\ufeff\u2066')],
  ['NaN as a string', '"NaN"'],
  ['Infinity as a string', '"Infinity"'],
  ['an overflowing number string', '"1e999"'],
  ['a hex number string', '"0x10"'],
  ['the string __proto__', '"__proto__"'],
  ['a __proto__ object', '{"__proto__":{"polluted":"yes"}}'],
  ['a constructor.prototype object', '{"constructor":{"prototype":{"polluted":"yes"}}}'],
  [`arrays nested ${DEPTH} deep`, `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`],
  [`objects nested ${DEPTH} deep`, `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`],
];

/** Whole bodies, beside the per-field values. */
const HOSTILE_BODIES: [string, (valid: string) => string][] = [
  ['an extra __proto__ key', (v) => `{"__proto__":{"polluted":"yes"},${v.slice(1)}`],
  [
    'an extra constructor key',
    (v) => `{"constructor":{"prototype":{"polluted":"yes"}},${v.slice(1)}`,
  ],
  ['a body that is an array', (v) => `[${v}]`],
  [`a body nested ${DEPTH} deep`, () => `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`],
  ['a bare string', () => '"text"'],
];

/** Whole query strings (GET and DELETE), beside the per-field values. */
const HOSTILE_QUERIES: [string, (valid: string) => string][] = [
  ['a __proto__ parameter', (v) => `__proto__=x&__proto__[polluted]=yes&${v}`],
  ['constructor[prototype]', (v) => `constructor[prototype][polluted]=yes&${v}`],
  ['broken percent-encoding', (v) => `${v}&${v.split('=')[0] || 'brand'}=%E0%A4%A&%zz=1`],
  ['a parameter repeated 1000 times', (v) => `${v}${'&limit=1'.repeat(1000)}`],
  ['a NUL in a parameter name', (v) => `${v}&a%00b=1`],
];

/** A nested value has no JSON.stringify in node (the stack ends first); it is kept as text. */
const tooDeep = (raw: string) => raw.startsWith('[['.repeat(100)) || raw.startsWith('{"a":{"a":');

/** zod 4: a schema's definition type, through optional, default, pipe and the like. */
function typeOf(schema: z.ZodType): string {
  const def = (schema as unknown as { def: Record<string, any> }).def;
  if (def.type === 'optional' || def.type === 'default' || def.type === 'nullable') {
    return typeOf(def.innerType);
  }
  if (def.type === 'pipe') return typeOf(def.in);
  return def.type;
}

const isOptional = (schema: z.ZodType) =>
  (schema as unknown as { safeParse(v: unknown): { success: boolean } }).safeParse(undefined)
    .success;

/**
 * A valid value for a field: by its name where the name says what it is (one world, one
 * story), otherwise by its type. Valid baselines let each hostile value be the only
 * wrong thing in its request, so the handler is reached whenever validation lets it by.
 */
function validValue(name: string, schema: z.ZodType): unknown {
  const byName: Record<string, unknown> = {
    brand: 'northwind.example',
    brand_id: 'northwind.example',
    event_uri: w.stories.northwind,
    email: 'owner@northwind.example',
    url: 'https://news.example/fuzz',
    return_url: 'https://partner.example/back',
    phase: 1,
    text: 'A fuzz statement.',
    context: 'Fuzz context.',
  };
  if (name in byName) return byName[name];
  const def = (schema as unknown as { def: Record<string, any> }).def;
  const type = typeOf(schema);
  if (type === 'enum') {
    const inner = def.innerType ?? def.in ?? schema;
    return Object.values((inner as any).def?.entries ?? def.entries ?? {})[0];
  }
  if (type === 'number') return 1;
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  return 'fuzz';
}

function fieldsOf(schema: z.ZodType): [string, z.ZodType][] {
  const shape = (schema as unknown as { shape?: Record<string, z.ZodType> }).shape;
  return Object.entries(shape ?? {});
}

function baseline(schema: z.ZodType, without?: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of fieldsOf(schema)) {
    if (name === without) continue;
    // Optional fields are left out; a field the world cannot fill is sent anyway.
    if (isOptional(field) && !['phase', 'text', 'context'].includes(name)) continue;
    out[name] = validValue(name, field);
  }
  return out;
}

/** `{"field": <raw>, …rest}` as text, so raw values that JSON.stringify cannot make survive. */
function bodyWith(rest: Record<string, unknown>, field: string, raw: string): string {
  const others = JSON.stringify(rest);
  return others === '{}' ? `{"${field}":${raw}}` : `{"${field}":${raw},${others.slice(1)}`;
}

/** The query string for a raw value: arrays repeat the parameter, objects travel as JSON. */
function queryWith(rest: Record<string, unknown>, field: string, raw: string): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(rest)) q.append(k, String(v));
  if (tooDeep(raw)) {
    q.append(field, raw);
    return q.toString();
  }
  const value = JSON.parse(raw);
  if (Array.isArray(value)) for (const v of value) q.append(field, String(v));
  else q.append(field, typeof value === 'object' && value !== null ? raw : String(value));
  return q.toString();
}

// ---------------------------------------------------------------------------------------
// The checks.

async function bounded<T>(what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: no answer within ${BOUND_MS} ms`)),
      BOUND_MS,
    );
  });
  try {
    return await Promise.race([p, hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** How many hostile requests each door got, printed at the end as the suite's figure. */
const sent = { rest: 0, mcp: 0 };

async function expectRestRefusalOrSuccess(what: string, send: () => Promise<any>) {
  sent.rest++;
  const r = await bounded(what, send());
  expect(r.status, `${what}: ${r.text.slice(0, 200)}`).toBeLessThan(500);
  if (r.status >= 300) {
    expect(r.status, what).toBeGreaterThanOrEqual(400);
    expect(r.headers.get('content-type'), what).toMatch(/^application\/json/);
    expect(Object.keys(r.body ?? {}), `${what}: ${r.text.slice(0, 200)}`).toEqual(['error']);
    expect(typeof r.body.error, what).toBe('string');
  }
}

interface ToolAnswer {
  isError?: boolean;
  content?: { type: string; text: string }[];
  structuredContent?: { status?: number };
}

/** A tool result (an isError one carries the JSON error and a 4xx), or a JSON-RPC error. */
function expectToolAnswer(what: string, answer: ToolAnswer | McpError) {
  if (answer instanceof McpError) {
    // A refusal of the request (parse, invalid request, unknown method, invalid params);
    // an InternalError (-32603) is the JSON-RPC 500, a bug.
    expect([-32700, -32600, -32601, -32602], `${what}: ${answer.message}`).toContain(answer.code);
    return;
  }
  if (!answer.isError) return;
  // The text is the structured content: the error, its status, and for a 403 the reason.
  const body = JSON.parse(answer.content![0]!.text);
  expect(body, `${what}: ${answer.content![0]!.text}`).toEqual(answer.structuredContent);
  expect(typeof body.error).toBe('string');
  expect(answer.structuredContent!.status, `${what}: ${body.error}`).toBeGreaterThanOrEqual(400);
  expect(answer.structuredContent!.status, `${what}: ${body.error}`).toBeLessThan(500);
}

/**
 * A tool call through the SDK client. A request the HTTP layer refuses before JSON-RPC
 * (a body with a `__proto__` key is refused as malformed JSON) is a 4xx `{"error"}`, as
 * every /mcp refusal before the protocol is (401, 403, 413, 429).
 */
async function callViaSdk(
  what: string,
  client: Client,
  name: string,
  args: Record<string, unknown>,
) {
  try {
    return (await client.callTool({ name, arguments: args }, undefined, {
      timeout: BOUND_MS,
    })) as ToolAnswer;
  } catch (e) {
    if (e instanceof McpError) return e;
    if (e instanceof StreamableHTTPError && e.code !== undefined) {
      svc.statuses.push(e.code);
      expect(e.code, `${what}: ${e.message}`).toBeGreaterThanOrEqual(400);
      expect(e.code, `${what}: ${e.message}`).toBeLessThan(500);
      expect(e.message, what).toMatch(/: \{"error":"[^"]*"\}$/);
      return undefined;
    }
    throw e;
  }
}

/** What the SDK cannot serialise (deep nesting) goes as raw JSON-RPC text, as a client could. */
async function callRaw(headers: Record<string, string>, name: string, argsText: string) {
  const res = await fetch(`${svc.url}/mcp`, {
    method: 'POST',
    headers: {
      ...headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${argsText}}}`,
  });
  svc.statuses.push(res.status);
  const text = await res.text();
  expect(res.status, text.slice(0, 200)).toBeLessThan(500);
  if (res.status >= 400) {
    expect(Object.keys(JSON.parse(text))).toEqual(['error']);
    return undefined;
  }
  const msg = JSON.parse(text) as {
    result?: ToolAnswer;
    error?: { code: number; message: string };
  };
  return msg.error ? new McpError(msg.error.code, msg.error.message) : msg.result!;
}

// ---------------------------------------------------------------------------------------

const restCases = (op: RestOperation) =>
  fieldsOf(op.input).flatMap(([field]) => HOSTILE.map(([name, raw]) => ({ field, name, raw })));

describe('REST: hostile values in every field of every operation', () => {
  it.each(restOperations.map((op) => [`${op.rest.method} ${op.rest.path}`, op] as const))(
    '%s',
    async (label, op) => {
      const { method, path } = op.rest;
      for (const { field, name, raw } of restCases(op)) {
        const rest = baseline(op.input, field);
        const what = `${label} ${field} = ${name}`;
        if (method === 'POST') {
          await expectRestRefusalOrSuccess(what, () =>
            svc.request('POST', path, {
              key: w.keys.owner,
              rawBody: bodyWith(rest, field, raw),
            }),
          );
        } else {
          await expectRestRefusalOrSuccess(what, () =>
            svc.request(method, `${path}?${queryWith(rest, field, raw)}`, {
              key: w.keys.owner,
            }),
          );
        }
      }
      if (method === 'POST') {
        const valid = JSON.stringify(baseline(op.input));
        for (const [name, make] of HOSTILE_BODIES) {
          await expectRestRefusalOrSuccess(`${label} body = ${name}`, () =>
            svc.request('POST', path, { key: w.keys.owner, rawBody: make(valid) }),
          );
        }
      } else {
        const valid = new URLSearchParams(baseline(op.input) as Record<string, string>).toString();
        for (const [name, make] of HOSTILE_QUERIES) {
          await expectRestRefusalOrSuccess(`${label} query = ${name}`, () =>
            svc.request(method, `${path}?${make(valid)}`, { key: w.keys.owner }),
          );
        }
      }
    },
    60_000,
  );
});

const tools: [string, 'key' | 'user', ToolEntry][] = [
  ...partnerTools.map((t) => [t.name, 'key', t] as [string, 'key', ToolEntry]),
  ...userTools.map((t) => [t.name, 'user', t] as [string, 'user', ToolEntry]),
];

describe('MCP: hostile values in every argument of every tool', () => {
  it.each(tools)(
    '%s',
    async (name, who, tool) => {
      const client = clients[who]!;
      const headers = credentials[who];
      const input =
        tool.door === 'user-tool'
          ? (tool.operation.userTool?.args ?? tool.operation.input)
          : tool.operation.input;
      for (const [field] of fieldsOf(input)) {
        const rest = baseline(input, field);
        for (const [valueName, raw] of HOSTILE) {
          const what = `${name} ${field} = ${valueName}`;
          sent.mcp++;
          const answer = tooDeep(raw)
            ? await bounded(what, callRaw(headers, name, bodyWith(rest, field, raw)))
            : await bounded(
                what,
                callViaSdk(what, client, name, JSON.parse(bodyWith(rest, field, raw)) as never),
              );
          if (answer) expectToolAnswer(what, answer);
        }
      }
      const valid = JSON.stringify(baseline(input));
      for (const [bodyName, make] of HOSTILE_BODIES) {
        const what = `${name} arguments = ${bodyName}`;
        sent.mcp++;
        const answer = await bounded(what, callRaw(headers, name, make(valid)));
        if (answer) expectToolAnswer(what, answer);
      }
    },
    60_000,
  );
});

/**
 * The portal's and the mail clients' doors take forms, not JSON: hostile form values and
 * bodies of every shape and size there, and one person hammering the forms. Never a 5xx,
 * never a dropped connection; an oversized body is a 413, a hammering person a 429.
 */
describe('portal: hostile forms and bodies', () => {
  /** The form values a person could type: each hostile value as text. */
  const typed = HOSTILE.map(([name, raw]) => {
    let text: string;
    try {
      text = String(JSON.parse(raw));
    } catch {
      text = raw;
    }
    return [name, text] as const;
  });

  it('/unsubscribe: any body, of any type and size, is answered (never a 5xx or a cut connection)', async () => {
    const bodies: [string, string, string | Uint8Array][] = [
      [
        'multipart/form-data; boundary=x',
        'multipart',
        '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n',
      ],
      ['multipart/form-data', 'multipart without a boundary', 'garbage'],
      [
        'multipart/form-data; boundary=x',
        '40 KB of multipart',
        `--x\r\n\r\n${'a'.repeat(40 * 1024)}`,
      ],
      ['multipart/form-data; boundary=x', '2 MB of multipart', 'a'.repeat(2 * 1024 * 1024)],
      ['application/x-www-form-urlencoded', '40 KB form', `a=${'b'.repeat(40 * 1024)}`],
      ['application/x-www-form-urlencoded', 'a NUL', 'a=%00'],
      ['application/json', 'JSON', '{"a":1}'],
      ['application/octet-stream', 'binary', new Uint8Array([0, 255, 1, 254])],
    ];
    for (const [type, name, body] of bodies) {
      sent.rest++;
      const res = await bounded(
        `/unsubscribe ${name}`,
        fetch(`${svc.url}/unsubscribe?t=not-a-token`, {
          method: 'POST',
          headers: { 'content-type': type },
          body,
        }),
      );
      svc.statuses.push(res.status);
      expect(res.status, name).toBeGreaterThanOrEqual(400);
      expect(res.status, name).toBeLessThan(500);
      await res.arrayBuffer();
    }
  });

  it('brand verification forms: hostile hosts and emails are refused with a page; a person hammering forms gets 429', async () => {
    const person = new PortalClient(svc.url);
    await person.signIn('owner@northwind.example', PASSWORD);
    await person.get('/app/brands');
    for (const [name, text] of typed) {
      for (const [path, fields] of [
        ['/app/brands/verify/dns', { brand: text }],
        ['/app/brands/verify', { brand: text, email: 'press@northwind.example' }],
        ['/app/brands/verify', { brand: 'northwind-claims.example', email: text }],
      ] as const) {
        sent.rest++;
        const r = await bounded(`${path} ${name}`, person.post(path, fields));
        svc.statuses.push(r.status);
        expect(r.status, `${path} ${name}`).toBeLessThan(500);
      }
      sent.rest++;
      const page = await bounded(
        `verify page ${name}`,
        // A lone surrogate has no URL form: a browser sends U+FFFD for it.
        person.get(
          `/app/brands/verify?brand=${encodeURIComponent(text.replace(/[\ud800-\udfff]/g, '\ufffd'))}`,
        ),
      );
      svc.statuses.push(page.status);
      expect(page.status, `verify page ${name}`).toBeLessThan(500);
    }
    // Past the person's window of form posts: 429 with Retry-After, never a 5xx.
    let last = 0;
    for (let i = 0; i < 130 && last !== 429; i++) {
      last = (await person.post('/app/views/svw_none/delete')).status;
      svc.statuses.push(last);
    }
    expect(last).toBe(429);
  });
});

describe('after the fuzzing', () => {
  it('no prototype was polluted', () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('the service still answers normally', async () => {
    const r = await svc.request('GET', '/v1/brands', { key: w.keys.owner });
    expect(r.status).toBe(200);
    const failed = svc.statuses.filter((s) => s >= 500);
    console.log(
      `fuzz (${process.env.TEST_DB}): ${sent.rest + sent.mcp} hostile requests (REST ${sent.rest}, MCP ${sent.mcp}), ${failed.length} answered 5xx`,
    );
    expect(failed).toEqual([]);
  });
});
