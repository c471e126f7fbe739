import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { redactUrl } from '../../src/http/server.js';
import { isPublicAddress } from '../../src/net/public-url.js';
import { safePost } from '../../src/net/safe-post.js';

let server: http.Server;
let base: string;
let config: ReturnType<typeof loadConfig>;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/silent') return; // never answers
    if (req.url === '/trickle') {
      // Headers at once, then a byte every 100 ms for ever.
      res.writeHead(200);
      const t = setInterval(() => res.write('x'), 100);
      res.on('close', () => clearInterval(t));
      return;
    }
    res.writeHead(204).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  config = loadConfig({ FETCH_ALLOW_HOSTS: `127.0.0.1:${port}` });
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe('safePost', () => {
  it('answers the status as soon as it arrives, without waiting for a trickling body', async () => {
    const started = Date.now();
    expect(await safePost(config, `${base}/trickle`, '{}', {}, 2000)).toEqual({ status: 200 });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('gives up at the deadline when no answer comes', async () => {
    const started = Date.now();
    await expect(safePost(config, `${base}/silent`, '{}', {}, 300)).rejects.toThrow(
      'no answer within 300 ms',
    );
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('refuses to connect to loopback unless allowlisted', async () => {
    await expect(safePost(loadConfig({}), `${base}/ok`, '{}', {}, 1000)).rejects.toThrow(
      /is not a public address/,
    );
  });
});

describe('isPublicAddress', () => {
  it.each([
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['192.168.0.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['::1', false],
    ['fc00::1', false],
    ['fe80::1', false],
    ['::ffff:127.0.0.1', false],
    ['64:ff9b::7f00:1', false],
    ['2002:7f00:1::', false],
    ['::', false],
    ['::7f00:1', false],
    ['::127.0.0.1', false],
    ['::a9fe:a9fe', false],
    ['::c0a8:101', false],
    ['::ffff:a9fe:a9fe', false],
    ['::ffff:0:a9fe:a9fe', false],
    ['64:ff9b::a9fe:a9fe', false],
    ['64:ff9b:1::a00:1', false],
    ['2002:a9fe:a9fe::1', false],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', false],
    ['2606:2800:220:1:0:5efe:a9fe:a9fe', false],
    ['2606:2800:220:1:200:5efe:a00:1', false],
    // Outside global unicast (2000::/3): unassigned space, whatever IPv4 it seems to hold.
    ['::1:7f00:1', false],
    ['1::7f00:1', false],
    ['::ffff:ffff:7f00:1', false],
    ['4000::1', false],
    ['93.184.216.34', true],
    ['::ffff:93.184.216.34', true],
    ['::5db8:d822', true],
    ['2606:2800:220:1:248:1893:25c8:1946', true],
    ['2606:2800:220:1:200:5efe:5db8:d822', true],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('redactUrl', () => {
  it.each([
    ['/onboard/inv_secret', '/onboard/…'],
    ['/onboard/inv_secret/signup', '/onboard/…/signup'],
    ['/onboard/confirm/link.sig', '/onboard/confirm/…'],
    ['/action/payload.sig', '/action/…'],
    ['/s/sharetoken', '/s/…'],
    ['/s/sharetoken/signin', '/s/…/signin'],
    ['/s/sharetoken/g/link.sig', '/s/…/g/…'],
    ['/reset/eyJ.sig', '/reset/…'],
    ['/signup/confirm/eyJ.sig', '/signup/confirm/…'],
    ['/verify-brand/eyJ.sig', '/verify-brand/…'],
    ['/oauth/interaction/uid123/login', '/oauth/interaction/…/login'],
    ['/billing/checkout/chk_1', '/billing/checkout/…'],
    ['/shares', '/shares'],
    ['/oauth/authorize?client_id=x&code_challenge=y', '/oauth/authorize?…'],
    ['/v1/stories?brand=acme.com', '/v1/stories?…'],
    ['/v1/brands', '/v1/brands'],
  ])('%s → %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });
});
