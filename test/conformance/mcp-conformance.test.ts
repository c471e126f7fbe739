import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startService, type TestService } from '../support/harness.js';
import { seedWorld } from '../support/world.js';

const run = promisify(execFile);

/**
 * The official MCP conformance suite against the running server. The suite needs Node 22
 * and sends no credentials, so it is installed on first use beside the project (the
 * `node` package from the npm registry brings Node 22; it is kept out of package.json
 * because its `node` binary would shadow the project's Node 20 in npm scripts), and it
 * reaches /mcp through a small local proxy that adds a partner key, standing where a
 * reverse proxy would: the service's BASE_URL is the proxy's address.
 *
 * Scenarios that apply to this server (docs/api.md lists those that do not and why).
 */
const APPLICABLE = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];
const SUITE = '@modelcontextprotocol/conformance@0.1.16';
const NODE22 = 'node@22.23.3';
const TOOLS = join(process.cwd(), 'node_modules', '.cache', 'mcp-conformance');

let svc: TestService;
let proxy: http.Server;
let proxyUrl: string;

async function installSuite() {
  if (existsSync(join(TOOLS, 'node_modules', '.bin', 'conformance'))) return;
  await run(
    'npm',
    [
      'install',
      '--prefix',
      TOOLS,
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      NODE22,
      SUITE,
    ],
    { timeout: 240_000 },
  );
}

beforeAll(async () => {
  await installSuite();
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
}, 300_000);

afterAll(async () => {
  proxy?.close();
  await svc?.close();
});

describe('MCP conformance suite', () => {
  it.each(APPLICABLE)('%s passes', async (scenario) => {
    const bin = join(TOOLS, 'node_modules', '.bin');
    const result = await run(
      join(bin, 'node'),
      [join(bin, 'conformance'), 'server', '--url', `${proxyUrl}/mcp`, '--scenario', scenario],
      { timeout: 60_000 },
    ).catch((e: { stdout: string; stderr: string }) => e);
    const output = `${result.stdout}${result.stderr}`;
    expect(output, output).toMatch(/Passed: (\d+)\/\1, 0 failed/);
    expect(output).not.toMatch(/Passed: 0\/0/);
  });
});
