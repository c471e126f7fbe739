import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Config, loadConfig } from '../../src/config.js';
import {
  FetchRefused,
  publicHostFetch,
  publicOnlyLookup,
  safeFetch,
} from '../../src/net/safe-fetch.js';

/**
 * The SSRF table: hostile URLs and redirect chains, all refused. A local server stands in
 * for a public site (allowlisted by its exact host:port, as FETCH_ALLOW_HOSTS does) and
 * redirects wherever a test tells it to; a second local server is the "internal" target
 * that must never be reached.
 */
let site: http.Server;
let internal: http.Server;
let siteBase: string;
let internalBase: string;
let internalHits = 0;
let config: Config;

const BOMB = gzipSync(Buffer.alloc(20 * 1024 * 1024));

beforeAll(async () => {
  internal = http.createServer((_req, res) => {
    internalHits++;
    res.end('secret');
  });
  internal.listen(0, '127.0.0.1');
  await once(internal, 'listening');
  internalBase = `http://127.0.0.1:${(internal.address() as AddressInfo).port}`;

  site = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/to') {
      res.writeHead(302, { location: url.searchParams.get('u')! }).end();
    } else if (url.pathname === '/loop') {
      const n = Number(url.searchParams.get('n'));
      res.writeHead(302, { location: `/loop?n=${n + 1}` }).end();
    } else if (url.pathname === '/bomb') {
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/html' }).end(BOMB);
    } else if (url.pathname === '/big') {
      res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
      res.end(Buffer.alloc(10 * 1024 * 1024));
    } else if (url.pathname === '/slow') {
      res.writeHead(200);
      const t = setInterval(() => res.write('x'), 50);
      res.on('close', () => clearInterval(t));
    } else {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>article</h1>');
    }
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  const port = (site.address() as AddressInfo).port;
  siteBase = `http://127.0.0.1:${port}`;
  config = loadConfig({ FETCH_ALLOW_HOSTS: `127.0.0.1:${port}` });
});
afterAll(() => {
  site.closeAllConnections();
  site.close();
  internal.close();
});

const HOSTILE = [
  'http://127.0.0.1/',
  'http://127.1/',
  'http://2130706433/',
  'http://0x7f000001/',
  'http://0177.0.0.1/',
  'http://017700000001/',
  'http://127.000.000.001/',
  'http://localhost/',
  'http://LocalHost:80/',
  'http://[::1]/',
  'http://[0:0:0:0:0:0:0:1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[64:ff9b::7f00:1]/',
  'http://[2002:7f00:1::]/',
  'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
  // IPv6 spellings of a non-public IPv4 address (the parser keeps them as IPv6 hex).
  'http://[::127.0.0.1]/',
  'http://[::7f00:1]/',
  'http://[::a9fe:a9fe]/latest/meta-data/',
  'http://[::10.0.0.1]/',
  'http://[::ffff:a9fe:a9fe]/',
  'http://[::ffff:0:a9fe:a9fe]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[64:ff9b:1::a9fe:a9fe]/',
  'http://[2002:a9fe:a9fe::1]/',
  // Teredo whose (inverted) client address is 127.0.0.1.
  'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
  // ISATAP interface identifiers carrying the metadata address, under a public prefix.
  'http://[2606:2800:220:1:0:5efe:a9fe:a9fe]/',
  'http://[2606:2800:220:1:200:5efe:7f00:1]/',
  'http://10.0.0.1/',
  'http://172.16.0.1/',
  'http://192.168.1.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://[fd00:ec2::254]/latest/meta-data/',
  'http://100.64.0.1/',
  'http://0.0.0.0/',
  'http://0/',
  'http://[::]/',
  'http://[fc00::1]/',
  'http://[fe80::1]/',
  'http://224.0.0.1/',
  'http://255.255.255.255/',
  'http://198.18.0.1/',
  'http://user:pass@example.com/',
  'ftp://example.com/file',
  'file:///etc/passwd',
  'gopher://127.0.0.1:70/',
  'data:text/plain,hello',
  'javascript:alert(1)',
  'not a url',
];

describe('SSRF: hostile URLs', () => {
  it.each(HOSTILE)('%s is refused by the rules, before any connection', async (url) => {
    const e = await safeFetch(config, url, { limits: { timeoutMs: 3000 } }).catch((x) => x);
    expect(e).toBeInstanceOf(FetchRefused);
    // Refused by policy, not by a network failure that happened to stop it.
    expect(e.message).not.toMatch(/^cannot fetch: (?!.*non-public)/);
  });

  it(`counts at least 30 (${HOSTILE.length})`, () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(30);
  });
});

/**
 * The resolved-address path: a public-looking name whose DNS answer is an IPv6 spelling
 * of a non-public address. The system resolver is replaced by one that answers what a
 * hostile DNS server would; the guard under test is the agent's real lookup.
 */
describe('SSRF: names resolving to hostile addresses', () => {
  const resolvingTo =
    (addresses: string[]) =>
    (
      _host: string,
      _opts: unknown,
      cb: (e: null, a: { address: string; family: number }[]) => void,
    ) =>
      cb(
        null,
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
  const resolveWith = (addresses: string[], all: boolean) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((done) =>
      publicOnlyLookup(resolvingTo(addresses) as never)('evil.example', { all }, (err, address) =>
        done({ err, address }),
      ),
    );

  it.each([
    '::7f00:1',
    '::a9fe:a9fe',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a00:1',
    '64:ff9b:1::a9fe:a9fe',
    '2002:a9fe:a9fe::1',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '2606:2800:220:1:0:5efe:a9fe:a9fe',
  ])('a name resolving to %s is refused at connect', async (address) => {
    for (const all of [false, true]) {
      const r = await resolveWith(['93.184.216.34', address], all);
      expect(r.err).toBeInstanceOf(FetchRefused);
      expect(r.err?.code).toBe('EREFUSED_PRIVATE');
    }
  });

  it('an unknown name and one resolving inside answer alike: no probing of internal names', async () => {
    const failing =
      (code: string) =>
      (_host: string, _opts: unknown, cb: (e: NodeJS.ErrnoException, a: never[]) => void) =>
        cb(Object.assign(new Error(`getaddrinfo ${code} evil.example`), { code }), []);
    const answer = (resolve: unknown) =>
      new Promise<NodeJS.ErrnoException & FetchRefused>((done) =>
        publicOnlyLookup(resolve as never)('evil.example', { all: true }, (err) =>
          done(err as never),
        ),
      );
    const unknown = await answer(failing('ENOTFOUND'));
    const inside = await answer(resolvingTo(['10.1.2.3']));
    expect(unknown.message).toBe('evil.example does not resolve to a public address');
    expect(inside.message).toBe(unknown.message);
    expect([unknown.transient, inside.transient]).toEqual([false, false]);
    // A DNS server that did not answer is worth another try later.
    expect((await answer(failing('EAI_AGAIN'))).transient).toBe(true);
  });

  it('a name resolving to public addresses only is dialled', async () => {
    const r = await resolveWith(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'], false);
    expect(r).toEqual({ err: null, address: '93.184.216.34' });
  });
});

describe('credentials', () => {
  it('go to the address asked only, never after a redirect to another origin', async () => {
    const seen: (string | undefined)[] = [];
    const other = http.createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.end('ok');
    });
    other.listen(0, '127.0.0.1');
    await once(other, 'listening');
    const otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const both = loadConfig({
      FETCH_ALLOW_HOSTS: `${new URL(siteBase).host},${new URL(otherBase).host}`,
    });
    try {
      const direct = await safeFetch(both, `${otherBase}/api`, {
        credentials: { authorization: 'Bearer k' },
      });
      expect(direct.status).toBe(200);
      const moved = await safeFetch(
        both,
        `${siteBase}/to?u=${encodeURIComponent(`${otherBase}/api`)}`,
        {
          credentials: { authorization: 'Bearer k' },
        },
      );
      expect(moved.status).toBe(200);
      expect(seen).toEqual(['Bearer k', undefined]);
    } finally {
      other.close();
    }
  });
});

describe('SSRF: redirect chains', () => {
  const via = (target: string) => `${siteBase}/to?u=${encodeURIComponent(target)}`;
  it.each([
    ['to the internal service', () => `${internalBase}/`],
    ['to loopback by name', () => `http://localhost:${new URL(internalBase).port}/`],
    ['to IPv6 loopback', () => `http://[::1]:${new URL(internalBase).port}/`],
    ['to the metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
    ['to a decimal loopback', () => 'http://2130706433/'],
    ['to a file', () => 'file:///etc/passwd'],
    ['through a second hop', () => via(`${internalBase}/`)],
  ])('a redirect %s is refused', async (_name, target) => {
    const before = internalHits;
    await expect(safeFetch(config, via(target()))).rejects.toBeInstanceOf(FetchRefused);
    expect(internalHits).toBe(before);
  });

  it('too many redirects are refused', async () => {
    await expect(safeFetch(config, `${siteBase}/loop?n=0`)).rejects.toThrow(
      'more than 5 redirects',
    );
  });
});

describe('SSRF: requests libraries make (publicHostFetch)', () => {
  it('answers a redirect as it is and never follows it, even from an allowed host', async () => {
    const before = internalHits;
    const res = await publicHostFetch(config, `${siteBase}/to?u=${internalBase}/`, {});
    expect(res.status).toBe(302);
    expect(internalHits).toBe(before);
  });

  it('refuses a non-public literal address before connecting', async () => {
    await expect(publicHostFetch(config, 'https://169.254.169.254/latest', {})).rejects.toThrow(
      FetchRefused,
    );
  });
});

describe('limits', () => {
  it('a gzip bomb stops at the size limit, counted after decompression', async () => {
    await expect(
      safeFetch(config, `${siteBase}/bomb`, { limits: { maxBytes: 1024 * 1024 } }),
    ).rejects.toThrow('larger than 1048576 bytes');
  });

  it('a declared oversize body is refused before reading it', async () => {
    await expect(
      safeFetch(config, `${siteBase}/big`, { limits: { maxBytes: 1024 * 1024 } }),
    ).rejects.toThrow('larger than');
  });

  it('a body that never ends hits the deadline', async () => {
    await expect(
      safeFetch(config, `${siteBase}/slow`, { limits: { timeoutMs: 300 } }),
    ).rejects.toThrow('no complete answer within 300 ms');
  });

  it('an allowed page is fetched, redirects followed', async () => {
    const r = await safeFetch(config, `${siteBase}/to?u=${encodeURIComponent('/article')}`);
    expect(r.status).toBe(200);
    expect(r.url).toBe(`${siteBase}/article`);
    expect(r.body.toString()).toBe('<h1>article</h1>');
  });
});
