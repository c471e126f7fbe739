import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../support/harness.js';

/**
 * Every URL the service writes comes from BASE_URL, never from the request's Host or
 * X-Forwarded-* headers, which any client sets: a poisoned discovery document or redirect
 * would send a user's password or tokens elsewhere. The service trusts one proxy hop here,
 * the case where forwarded headers are read at all.
 */
let svc: TestService;

beforeAll(async () => {
  svc = await startService({ TRUST_PROXY: '1' }, { runJobs: false });
});
afterAll(() => svc.close());

const HOSTILE_HEADERS: Record<string, string>[] = [
  { host: 'evil.example' },
  { host: 'evil.example:8443' },
  { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
  { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-port': '443' },
  { forwarded: 'host=evil.example;proto=https' },
];

/** A raw request, so that Host can be anything (fetch fixes it to the URL's). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const { port } = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method, path, headers, setHost: headers.host === undefined },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Every absolute URL in a JSON document. */
function urlsIn(value: unknown): string[] {
  if (typeof value === 'string') return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? [value] : [];
  if (value && typeof value === 'object') return Object.values(value).flatMap(urlsIn);
  return [];
}

describe('URLs the service builds ignore Host and X-Forwarded-*', () => {
  for (const path of [
    '/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration',
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-protected-resource/mcp',
  ]) {
    it(`${path}: every URL starts with BASE_URL`, async () => {
      for (const headers of HOSTILE_HEADERS) {
        const r = await raw('GET', path, headers);
        expect(r.status).toBe(200);
        const urls = urlsIn(JSON.parse(r.text));
        expect(urls.length).toBeGreaterThan(0);
        for (const u of urls) expect(u.startsWith(`${svc.url}/`) || u === svc.url, u).toBe(true);
        expect(r.text).not.toContain('evil.example');
      }
    });
  }

  it('client registration and the authorization redirect point at BASE_URL', async () => {
    for (const headers of HOSTILE_HEADERS) {
      const reg = await raw(
        'POST',
        '/oauth/register',
        { ...headers, 'content-type': 'application/json' },
        JSON.stringify({
          client_name: 'host test',
          redirect_uris: ['http://127.0.0.1:9/callback'],
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
        }),
      );
      expect(reg.status).toBe(201);
      expect(reg.text).not.toContain('evil.example');
      const client = JSON.parse(reg.text) as { client_id: string };
      const verifier = randomBytes(32).toString('base64url');
      const query = new URLSearchParams({
        client_id: client.client_id,
        redirect_uri: 'http://127.0.0.1:9/callback',
        response_type: 'code',
        scope: 'mcp',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        state: 'st',
      });
      const auth = await raw('GET', `/oauth/authorize?${query}`, headers);
      expect(auth.status).toBeGreaterThanOrEqual(300);
      expect(auth.status).toBeLessThan(400);
      const location = auth.headers.location!;
      expect(location.startsWith('/') || location.startsWith(`${svc.url}/`), location).toBe(true);
      expect(JSON.stringify(auth.headers)).not.toContain('evil.example');
    }
  });

  it("/mcp's WWW-Authenticate names BASE_URL's metadata", async () => {
    for (const headers of HOSTILE_HEADERS) {
      const r = await raw('POST', '/mcp', { ...headers, 'content-type': 'application/json' }, '{}');
      expect(r.status).toBe(401);
      expect(r.headers['www-authenticate']).toBe(
        `Bearer resource_metadata="${svc.url}/.well-known/oauth-protected-resource", scope="mcp"`,
      );
    }
  });
});
