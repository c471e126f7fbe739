import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startService, type TestService } from '../support/harness.js';
import { OAuthBrowser, registerClient } from '../support/oauth-browser.js';
import { seedWorld } from '../support/world.js';

const run = promisify(execFile);

/**
 * The official MCP conformance suite (a dev dependency, run on the project's own Node 22+)
 * against the running server. The suite sends no credentials, so it reaches /mcp through a
 * small local proxy that adds a partner key, standing where a reverse proxy would: the
 * service's BASE_URL is the proxy's address.
 */

/**
 * Scenarios that apply to this server, with the checks in them that cannot: each needs
 * a diagnostic tool of the suite's reference server, or a feature Stories does not offer
 * (prompts, resources). docs/clients/README.md lists the scenarios that do not apply at all
 * and why. Every other check of these scenarios must succeed.
 */
const APPLICABLE: Record<string, string[]> = {
  // 2025-11-25 and older: the initialize handshake.
  'server-initialize': [],
  ping: [],
  'tools-list': [],
  'dns-rebinding-protection': [],
  // 2026-07-28: stateless requests, server/discover, the new headers and errors.
  'server-stateless': [
    'sep-2575-server-rejects-undeclared-capability', // needs tool test_missing_capability
    'sep-2575-missing-capability-http-400', // the same
    'sep-2575-http-server-no-independent-requests-on-stream', // test_streaming_elicitation
    'sep-2575-server-no-log-without-loglevel', // test_logging_tool
  ],
  'http-header-validation': [],
  caching: [
    'sep-2549-prompts-list-caching-hints', // no prompts
    'sep-2549-resources-list-caching-hints', // no resources
    'sep-2549-resources-templates-list-caching-hints',
  ],
};
const SUITE = join(process.cwd(), 'node_modules', '.bin', 'conformance');

let svc: TestService;
let proxy: http.Server;
let proxyUrl: string;

beforeAll(async () => {
  const port = await freePort();
  proxyUrl = `http://127.0.0.1:${port}`;
  svc = await startService({ BASE_URL: proxyUrl }, { runJobs: false });
  const w = await seedWorld(svc.app);
  const target = new URL(svc.url);
  proxy = http
    .createServer((req, res) => {
      // The partner key for /mcp only: the authorization server is tested as it is.
      const headers = req.url?.startsWith('/mcp')
        ? { ...req.headers, authorization: `Bearer ${w.keys.owner}` }
        : req.headers;
      const up = http.request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers },
        (r) => {
          res.writeHead(r.statusCode!, r.headers);
          r.pipe(res);
        },
      );
      up.on('error', () => res.writeHead(502).end());
      req.pipe(up);
    })
    .listen(port, '127.0.0.1');
}, 60_000);

afterAll(async () => {
  proxy?.close();
  await svc?.close();
});

describe('MCP conformance suite', () => {
  it.each(Object.entries(APPLICABLE))('%s passes', async (scenario, notTestable) => {
    const result = await run(
      process.execPath,
      [SUITE, 'server', '--url', `${proxyUrl}/mcp`, '--scenario', scenario],
      { timeout: 60_000, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } },
    ).catch((e: { stdout: string; stderr: string }) => e);
    const output = `${result.stdout}${result.stderr}`;
    const checks = checksOf(output);
    expect(checks.filter((c) => c.verdict === 'SUCCESS').length, output).toBeGreaterThan(0);
    expect(
      checks.filter((c) => c.verdict !== 'SUCCESS').map((c) => c.id),
      output,
    ).toEqual(notTestable);
  });
});

/** Terminal colours out, then each check's id and verdict. */
function checksOf(text: string) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips terminal colours
  const plain = text.replace(/\x1b\[[0-9;]*m/g, '');
  return [...plain.matchAll(/\[([a-z0-9-]+)\s*\] (SUCCESS|FAILURE|WARNING)/g)].map((m) => ({
    id: m[1]!,
    verdict: m[2]!,
  }));
}

describe('MCP conformance suite: the authorization server', () => {
  it('passes its metadata and authorization code grant scenarios, signed in by a person', async () => {
    const callbackPort = await freePort();
    const redirect = `http://127.0.0.1:${callbackPort}/callback`;
    const { client_id } = await registerClient(proxyUrl, {
      client_name: 'Conformance suite',
      redirectUri: redirect,
    });
    const suite = spawn(
      process.execPath,
      [
        SUITE,
        'authorization',
        '--url',
        proxyUrl,
        '--client-id',
        client_id,
        '--port',
        String(callbackPort),
        '--resource',
        `${proxyUrl}/mcp`,
      ],
      { env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } },
    );
    let output = '';
    suite.stderr.on('data', (d) => {
      output += d;
    });
    const exited = once(suite, 'exit');
    // The suite prints the authorization URL for a person to open: the test's browser
    // signs in and consents, and the redirect goes to the suite's callback server.
    for await (const line of createInterface({ input: suite.stdout })) {
      output += `${line}\n`;
      if (line.startsWith(`${proxyUrl}/oauth/authorize?`)) {
        const browser = new OAuthBrowser({
          email: 'owner@northwind.example',
          password: 'correct horse battery',
        });
        const back = await browser.authorize(line.trim(), redirect);
        await fetch(back);
      }
    }
    await exited;
    // A run of several scenarios ends with one line each: "✓ <scenario>: 2 passed, 0 failed".
    const results = Object.fromEntries(
      [...output.matchAll(/^\S+ ([a-z0-9-]+): (\d+) passed, (\d+) failed/gm)].map((m) => [
        m[1],
        { passed: Number(m[2]), failed: Number(m[3]) },
      ]),
    );
    for (const scenario of ['authorization-server-metadata-endpoint', 'authorization-code-grant']) {
      expect(results[scenario]?.passed, output).toBeGreaterThan(0);
      expect(results[scenario]?.failed, output).toBe(0);
    }
  });
});
