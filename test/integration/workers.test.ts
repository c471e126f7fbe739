import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { promisify } from 'node:util';
import { Agent, request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brs, brsProcess, brsServe, brsServeAnswering } from '../support/cli.js';
import { migratedDatabase } from '../support/databases.js';
import { freePort } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';

/** WORKERS=2: several server processes on one port, without Redis. */
let env: Record<string, string>;
let drop: () => Promise<void>;
let account: string;
let key: string;
let server: Awaited<ReturnType<typeof brsServe>>;

/** One request on its own connection, so the kernel spreads them over the workers. */
function get(
  path: string,
  apiKey = key,
): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { agent: false, headers: { 'x-api-key': apiKey } });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Opens twenty keep-alive connections to `url` at once, one request each, and counts, with
 * `ss`, the connections each server process holds, by pid.
 */
async function connectionsPerWorker(url: string): Promise<Map<number, number>> {
  const agent = new Agent({ connections: 20 });
  try {
    await Promise.all(
      Array.from({ length: 20 }, () =>
        undiciRequest(`${url}/healthz`, { dispatcher: agent }).then((r) => r.body.dump()),
      ),
    );
    const { port } = new URL(url);
    const { stdout } = await promisify(execFile)('ss', [
      '-tnpH',
      'state',
      'established',
      `( sport = :${port} )`,
    ]);
    const perWorker = new Map<number, number>();
    for (const [, pid] of stdout.matchAll(/pid=(\d+)/g)) {
      perWorker.set(Number(pid), (perWorker.get(Number(pid)) ?? 0) + 1);
    }
    return perWorker;
  } finally {
    await agent.close();
  }
}

async function workerPids(of = server): Promise<number[]> {
  const { stdout } = await promisify(execFile)('pgrep', ['-P', String(of.child.pid)]);
  return stdout.trim().split('\n').map(Number);
}

beforeAll(async () => {
  const db = await migratedDatabase();
  env = { DATABASE_URL: db.url, WORKERS: '2' };
  drop = db.drop;
  account = (await brs(env, 'account', 'create', '--name', 'P', '--plan', 'partner')).out.account;
  key = (
    await brs(env, 'key', 'create', '--account', account, '--role', 'owner', '--scope', 'full')
  ).out.key;
  server = await brsServe(env);
});
afterAll(async () => {
  await server?.stop();
  await drop();
});

describe('WORKERS=2', () => {
  it('runs two server processes behind one port', async () => {
    expect(await workerPids()).toHaveLength(2);
  });

  it('runs the workers with a larger young generation and no pretenuring', async () => {
    for (const pid of await workerPids()) {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      expect(args).toContain('--max-semi-space-size=64');
      expect(args).toContain('--no-allocation-site-pretenuring');
    }
  });

  it('counts one rate-limit window per key across the processes', async () => {
    // A key of its own: this test spends its whole window.
    const own = (
      await brs(env, 'key', 'create', '--account', account, '--role', 'owner', '--scope', 'full')
    ).out.key;
    const remaining: number[] = [];
    for (let i = 0; i < 120; i++) {
      const r = await get('/v1/brands', own);
      expect(r.status).toBe(200);
      remaining.push(Number(r.headers['ratelimit-remaining']));
    }
    // Per-process windows would repeat numbers; one shared window counts straight down.
    expect(remaining).toEqual(Array.from({ length: 120 }, (_, i) => 119 - i));
    const r = await get('/v1/brands', own);
    expect(r.status).toBe(429);
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('answers each of many calls sent together by its own window', async () => {
    // Requests at once travel to the primary in batches of several calls: each answer
    // must be its own call's, whichever order and mix of keys a batch holds.
    const create = async () =>
      (await brs(env, 'key', 'create', '--account', account, '--role', 'owner', '--scope', 'full'))
        .out.key;
    const [a, b] = [await create(), await create()];
    const calls = Array.from({ length: 90 }, (_, i) => (i % 3 === 2 ? b : a));
    const answers = await Promise.all(calls.map((k) => get('/v1/brands', k)));
    const remainingOf = (k: string) =>
      answers
        .filter((_, i) => calls[i] === k)
        .map((r) => Number(r.headers['ratelimit-remaining']))
        .sort((x, y) => y - x);
    expect(answers.every((r) => r.status === 200)).toBe(true);
    expect(remainingOf(a)).toEqual(Array.from({ length: 60 }, (_, i) => 119 - i));
    expect(remainingOf(b)).toEqual(Array.from({ length: 30 }, (_, i) => 119 - i));
  });

  it('gives successful sign-ins back through the primary: the same person keeps signing in', async () => {
    const account = (await brs(env, 'account', 'create', '--name', 'S', '--plan', 'pro')).out
      .account;
    const email = 'busy@workers.example';
    await brs(
      env,
      'user',
      'create',
      '--account',
      account,
      '--email',
      email,
      '--password',
      'correct horse battery',
      '--role',
      'owner',
    );
    // Past the 10 failures an (address, email) may have in a minute, all of them right.
    for (let i = 0; i < 12; i++) {
      const c = new PortalClient(server.url);
      expect((await c.signIn(email, 'correct horse battery')).status).toBe(303);
    }
    expect((await new PortalClient(server.url).signIn(email, 'wrong password')).status).toBe(401);
  });

  it('replaces a worker that dies and keeps answering', async () => {
    const [victim] = await workerPids();
    process.kill(victim!, 'SIGKILL');
    for (let i = 0; i < 100; i++) {
      const pids = await workerPids().catch((): number[] => []);
      if (pids.length === 2 && !pids.includes(victim!)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const pids = await workerPids();
    expect(pids).toHaveLength(2);
    expect(pids).not.toContain(victim);
    const statuses = new Set<number>();
    for (let i = 0; i < 6; i++) statuses.add((await get('/healthz')).status);
    expect([...statuses]).toEqual([200]);
    // Once built, the new worker listens: connections reach it too.
    let holders: number[] = [];
    for (let i = 0; i < 50 && holders.length < 2; i++) {
      holders = [...(await connectionsPerWorker(server.url)).keys()];
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(holders.sort()).toEqual(pids.sort());
  });

  it('starts its workers listening together: the first connections reach every one', async () => {
    const own = await brsServeAnswering(env, await freePort());
    try {
      // Connections opened the moment it first answers, as a balancer's pool: one worker
      // alone held them all when the others started listening a second later.
      const perWorker = await connectionsPerWorker(own.url);
      expect([...perWorker.keys()].sort()).toEqual((await workerPids(own)).sort());
    } finally {
      await own.stop();
    }
  });

  it('stops with an error when its workers cannot listen (the port is taken)', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const { port } = taken.address() as AddressInfo;
    try {
      const run = await brsProcess({ ...env, PORT: String(port), HOST: '127.0.0.1' }, 'serve');
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('EADDRINUSE');
      // Each worker says why; the command, as JSON (--json), that it stopped.
      expect(run.out).toEqual({ error: 'a server worker exited at start (1)' });
    } finally {
      taken.close();
    }
  });

  it('stops every process on SIGTERM', async () => {
    // A server of its own to stop.
    const own = await brsServe(env);
    const pids = await workerPids(own);
    await own.stop();
    expect(own.child.exitCode).toBe(0);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  });
});
