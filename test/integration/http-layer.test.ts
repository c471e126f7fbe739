import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../support/harness.js';
import { seedWorld, type World } from '../support/world.js';

/**
 * What is answered before any route runs (node's parser and timers, Fastify's router) is
 * bounded in time and carries `{"error": …}` like every other error. Raw sockets, because
 * an HTTP client would not send what is tested here.
 */
let svc: TestService;
let w: World;
const REQUEST_TIMEOUT_MS = 1000;
const HEADERS_TIMEOUT_MS = 600;

beforeAll(async () => {
  svc = await startService(
    {
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    },
    { runJobs: false },
  );
  w = await seedWorld(svc.app);
});
afterAll(() => svc.close());

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from the first byte sent to the socket's close. */
  elapsed: number;
  closed: boolean;
}

/**
 * Sends `chunks` (then nothing more, the socket left open) and reads until the server
 * closes the socket or `waitMs` passes.
 */
function rawExchange(chunks: (string | Buffer)[], waitMs = 5000): Promise<RawAnswer> {
  const { port } = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const started = Date.now();
    const received: Buffer[] = [];
    let closed = false;
    const finish = () => {
      clearTimeout(timer);
      const text = Buffer.concat(received).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(':');
        headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      socket.destroy();
      resolve({
        status: Number(statusLine.split(' ')[1] ?? 0),
        headers,
        body: rest.join('\r\n\r\n'),
        elapsed: Date.now() - started,
        closed,
      });
    };
    const timer = setTimeout(finish, waitMs);
    socket.on('data', (d) => received.push(d));
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      // The server may close while a large request is still being written.
      if (e.code !== 'ECONNRESET' && e.code !== 'EPIPE') reject(e);
    });
    socket.on('connect', () => {
      for (const c of chunks) socket.write(c);
    });
  });
}

function expectErrorBody(r: RawAnswer, status: number, error: string | RegExp) {
  expect(r.status).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(r.body);
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error).toMatch(error);
}

const head = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`;

describe('time limits', () => {
  it('a body that stops halfway is answered 408 {error} and closed within the request timeout', async () => {
    const r = await rawExchange([
      head([
        'POST /v1/brand-note HTTP/1.1',
        'Host: x',
        `X-API-Key: ${w.keys.owner}`,
        'Content-Type: application/json',
        'Content-Length: 1000',
      ]),
      '{"brand": "northwind.example", "te',
    ]);
    expectErrorBody(r, 408, /^request: /);
    expect(r.headers.connection).toBe('close');
    expect(r.closed).toBe(true);
    // The timeout plus at most one check interval, with room for a slow machine.
    expect(r.elapsed).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(r.elapsed).toBeLessThan(REQUEST_TIMEOUT_MS + 1500);
  });

  it('a chunked body that never ends is answered 408 too', async () => {
    const r = await rawExchange([
      head([
        'POST /v1/brand-note HTTP/1.1',
        'Host: x',
        `X-API-Key: ${w.keys.owner}`,
        'Content-Type: application/json',
        'Transfer-Encoding: chunked',
      ]),
      '5\r\n{"bra\r\n',
    ]);
    expectErrorBody(r, 408, /^request: /);
    expect(r.closed).toBe(true);
    expect(r.elapsed).toBeLessThan(REQUEST_TIMEOUT_MS + 1500);
  });

  it('headers that never finish are answered 408 within the headers timeout', async () => {
    const r = await rawExchange(['GET /v1/brands HTTP/1.1\r\nHost: x\r\nX-API-Key: brs_']);
    expectErrorBody(r, 408, /^request: /);
    expect(r.closed).toBe(true);
    expect(r.elapsed).toBeLessThan(HEADERS_TIMEOUT_MS + 1500);
  });

  it('a complete request on the same kind of socket is answered at once', async () => {
    const r = await rawExchange(
      [
        head([
          'GET /v1/brands HTTP/1.1',
          'Host: x',
          `X-API-Key: ${w.keys.owner}`,
          'Connection: close',
        ]),
      ],
      3000,
    );
    expect(r.status).toBe(200);
    expect(r.elapsed).toBeLessThan(1000);
  });
});

describe('errors from the HTTP layer carry {error}', () => {
  it('431 for headers over the size limit', async () => {
    const r = await rawExchange([
      head(['GET /v1/brands HTTP/1.1', 'Host: x', `X-Big: ${'a'.repeat(20_000)}`]),
    ]);
    expectErrorBody(r, 431, 'request: headers too large');
    expect(r.closed).toBe(true);
  });

  it('431 for a request line over the size limit', async () => {
    const r = await rawExchange([
      head([`GET /v1/brands?x=${'a'.repeat(20_000)} HTTP/1.1`, 'Host: x']),
    ]);
    expectErrorBody(r, 431, 'request: headers too large');
  });

  it.each([
    ['bytes that are not HTTP', 'HELLO\r\n\r\n'],
    ['an unknown method', head(['BREW /v1/brands HTTP/1.1', 'Host: x'])],
    ['a bad HTTP version', head(['GET /v1/brands HTTP/9.9', 'Host: x'])],
    ['a header without a colon', head(['GET /v1/brands HTTP/1.1', 'Host: x', 'nonsense'])],
    [
      'Content-Length and Transfer-Encoding together',
      head([
        'POST /v1/brand-note HTTP/1.1',
        'Host: x',
        'Content-Length: 3',
        'Transfer-Encoding: chunked',
      ]),
    ],
    [
      'a bad Content-Length',
      head(['POST /v1/brand-note HTTP/1.1', 'Host: x', 'Content-Length: x']),
    ],
    ['a NUL in a header', head(['GET /v1/brands HTTP/1.1', 'Host: x', 'X-A: a\u0000b'])],
  ])('400 for %s', async (_name, request) => {
    const r = await rawExchange([request]);
    expectErrorBody(r, 400, 'request: malformed HTTP');
    expect(r.closed).toBe(true);
  });

  it('400 for an HTTP/1.1 request without Host; HTTP/1.0 needs none', async () => {
    const r = await rawExchange([head(['GET /v1/brands HTTP/1.1', 'Connection: close'])]);
    expectErrorBody(r, 400, 'request: Host header required');
    const old = await rawExchange([head(['GET /healthz HTTP/1.0'])]);
    expect(old.status).toBe(200);
  });

  it('405 for CONNECT: the service is no proxy', async () => {
    const r = await rawExchange([
      head(['CONNECT evil.example:443 HTTP/1.1', 'Host: evil.example:443']),
    ]);
    expectErrorBody(r, 405, 'method not allowed: CONNECT');
    expect(r.closed).toBe(true);
  });

  it('417 for an expectation the service cannot meet', async () => {
    const r = await rawExchange([
      head(['GET /v1/brands HTTP/1.1', 'Host: x', 'Expect: foo', 'Connection: close']),
    ]);
    expectErrorBody(r, 417, 'expect: only 100-continue is supported');
  });

  it('413 for a body over the limit, declared or sent', async () => {
    const declared = await rawExchange([
      head([
        'POST /v1/brand-note HTTP/1.1',
        'Host: x',
        `X-API-Key: ${w.keys.owner}`,
        'Content-Type: application/json',
        `Content-Length: ${2 * 1024 * 1024}`,
        'Connection: close',
      ]),
    ]);
    expectErrorBody(declared, 413, 'body: too large');
    const chunk = `${(1024 * 1024).toString(16)}\r\n${'a'.repeat(1024 * 1024)}\r\n`;
    const streamed = await rawExchange([
      head([
        'POST /v1/brand-note HTTP/1.1',
        'Host: x',
        `X-API-Key: ${w.keys.owner}`,
        'Content-Type: application/json',
        'Transfer-Encoding: chunked',
        'Connection: close',
      ]),
      chunk,
      chunk,
    ]);
    expectErrorBody(streamed, 413, 'body: too large');
  });

  it('400 for a body that is not JSON, as the contract decides', async () => {
    const r = await rawExchange([
      head([
        'POST /v1/brand-note HTTP/1.1',
        'Host: x',
        `X-API-Key: ${w.keys.owner}`,
        'Content-Type: text/xml',
        'Content-Length: 4',
        'Connection: close',
      ]),
      '<a/>',
    ]);
    expectErrorBody(r, 400, 'body: must be JSON (Content-Type: application/json)');
  });

  it('404 for an unknown path or method, 405 for GET /mcp', async () => {
    for (const line of [
      'GET /nowhere HTTP/1.1',
      'PUT /v1/brands HTTP/1.1',
      'PATCH /v1/story HTTP/1.1',
      // Not one of the authorization server's endpoints: the service's 404, not the library's.
      'GET /oauth/reg HTTP/1.1',
      'GET /oauth/me HTTP/1.1',
    ]) {
      const r = await rawExchange([head([line, 'Host: x', 'Connection: close'])]);
      expectErrorBody(r, 404, 'not found');
    }
    const mcp = await rawExchange([head(['GET /mcp HTTP/1.1', 'Host: x', 'Connection: close'])]);
    expectErrorBody(mcp, 405, /^method not allowed/);
  });

  it("400 for a path Fastify cannot decode, 414 for a path parameter over the router's limit", async () => {
    const bad = await rawExchange([
      head(['GET /s/%E0%A4%A HTTP/1.1', 'Host: x', 'Connection: close']),
    ]);
    expectErrorBody(bad, 400, /^request: /);
    const long = await rawExchange([
      head([`GET /action/${'a'.repeat(600)} HTTP/1.1`, 'Host: x', 'Connection: close']),
    ]);
    expectErrorBody(long, 414, /^request: /);
  });
});
