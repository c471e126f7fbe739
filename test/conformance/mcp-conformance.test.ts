import { execFile } from 'node:child_process';
import http from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startService, type TestService } from '../support/harness.js';
import { seedWorld } from '../support/world.js';

const run = promisify(execFile);

/**
 * The official MCP conformance suite (a dev dependency, run on the project's own Node 22+)
 * against the running server. The suite sends no credentials, so it reaches /mcp through a
 * small local proxy that adds a partner key, standing where a reverse proxy would: the
 * service's BASE_URL is the proxy's address.
 *
 * Scenarios that apply to this server (docs/api.md lists those that do not and why).
 */
const APPLICABLE = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];
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
      const headers = { ...req.headers, authorization: `Bearer ${w.keys.owner}` };
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
  it.each(APPLICABLE)('%s passes', async (scenario) => {
    const result = await run(
      process.execPath,
      [SUITE, 'server', '--url', `${proxyUrl}/mcp`, '--scenario', scenario],
      { timeout: 60_000 },
    ).catch((e: { stdout: string; stderr: string }) => e);
    const output = `${result.stdout}${result.stderr}`;
    expect(output, output).toMatch(/Passed: (\d+)\/\1, 0 failed/);
    expect(output).not.toMatch(/Passed: 0\/0/);
  });
});
