import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brs, brsProcess, brsServe, brsServeAnswering } from '../support/cli.js';
import { migratedDatabase } from '../support/databases.js';
import { freePort } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';

/** WORKERS=2: two server threads on one port, without Redis. */
let env: Record<string, string>;
let drop: () => Promise<void>;
let account: string;
let key: string;
let server: Awaited<ReturnType<typeof brsServe>>;

/** One request on its own connection, so the kernel spreads them over the threads. */
function get(
  path: string,
  apiKey = key,
  url = server.url,
): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { agent: false, headers: { 'x-api-key': apiKey } });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The server threads of a `brs serve` process, by thread id (Node names them). */
function serverThreads(of = server): number[] {
  const tasks = `/proc/${of.child.pid}/task`;
  return readdirSync(tasks)
    .filter((tid) => {
      try {
        return readFileSync(`${tasks}/${tid}/comm`, 'utf8').startsWith('brs-server-');
      } catch {
        return false; // a thread that just ended
      }
    })
    .map(Number)
    .sort();
}

/** How many sockets listen on the server's port: one per server thread. */
async function listeners(url = server.url): Promise<number> {
  const { port } = new URL(url);
  const { stdout } = await promisify(execFile)('ss', ['-tlnH', `( sport = :${port} )`]);
  return stdout.split('\n').filter((l) => l.trim() !== '').length;
}

const until = async (check: () => Promise<boolean> | boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
};

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
  it('runs two server threads, each listening on the one port', async () => {
    expect(serverThreads()).toHaveLength(2);
    expect(await listeners()).toBe(2);
  });

  it('counts one rate-limit window per key across the threads', async () => {
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
    // Per-thread windows would repeat numbers; one shared window counts straight down.
    expect(remaining).toEqual(Array.from({ length: 120 }, (_, i) => 119 - i));
    const r = await get('/v1/brands', own);
    expect(r.status).toBe(429);
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('counts each of many calls at once in its own key’s window, none lost between threads', async () => {
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

  it('gives successful sign-ins back in the shared windows: the same person keeps signing in', async () => {
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

  it('replaces a thread that dies of an uncaught exception, and keeps answering', async () => {
    const crash = join(tmpdir(), `brs-crash-${process.pid}-${Date.now()}`);
    const hook = fileURLToPath(new URL('../support/thread-crash-hook.mjs', import.meta.url));
    const own = await brsServe({
      ...env,
      BRS_TEST_CRASH_FILE: crash,
      NODE_OPTIONS: `--import ${hook}`,
    });
    try {
      const before = serverThreads(own);
      expect(before).toHaveLength(2);
      writeFileSync(crash, '');
      await until(() => !existsSync(crash));
      // One thread gone, another in its place; the process and the other thread live on.
      await until(() => {
        const now = serverThreads(own);
        return now.length === 2 && now.some((tid) => !before.includes(tid));
      });
      expect(serverThreads(own).filter((tid) => before.includes(tid))).toHaveLength(1);
      const statuses = new Set<number>();
      for (let i = 0; i < 6; i++) statuses.add((await get('/healthz', key, own.url)).status);
      expect([...statuses]).toEqual([200]);
      // Once built, the new thread listens: the kernel hands it connections too.
      await until(async () => (await listeners(own.url)) === 2);
    } finally {
      await own.stop();
    }
  });

  it('starts its threads listening together: at the first answer, both listen', async () => {
    const own = await brsServeAnswering(env, await freePort());
    try {
      // A balancer's pool opened at the first answer would all go to the one listening
      // thread; the other, built a moment later, would get none of those connections.
      await until(async () => (await listeners(own.url)) === 2, 100);
    } finally {
      await own.stop();
    }
  });

  it('stops with an error when the port is taken', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const { port } = taken.address() as AddressInfo;
    try {
      const run = await brsProcess({ ...env, PORT: String(port), HOST: '127.0.0.1' }, 'serve');
      expect(run.code).toBe(1);
      expect(run.out.error).toContain('EADDRINUSE');
    } finally {
      taken.close();
    }
  });

  it('does not share its port with another server that listens with SO_REUSEPORT', async () => {
    // A second `brs serve` on the same port would have the kernel split the connections
    // between two services without a word.
    const port = new URL(server.url).port;
    const run = await brsProcess({ ...env, PORT: port, HOST: '127.0.0.1' }, 'serve');
    expect(run.code).toBe(1);
    expect(run.out.error).toContain('EADDRINUSE');
    expect(await listeners()).toBe(2);
  });

  it('names the server thread in each of its log lines', async () => {
    const own = await brsServe({ ...env, LOG_LEVEL: 'info' }, { stderr: 'pipe' });
    let log = '';
    own.child.stderr!.on('data', (chunk) => {
      log += chunk;
    });
    // Each request on its own connection: with 30, both threads answer some.
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => get('/v1/brands', key, own.url)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
    await own.stop();
    const lines = log
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    const completed = lines.filter((l) => l.msg === 'request completed');
    expect(completed).toHaveLength(30);
    for (const l of completed) expect(l).toMatchObject({ pid: own.child.pid });
    expect(new Set(completed.map((l) => l.thread))).toEqual(new Set([1, 2]));
  });

  it('stops every thread on SIGTERM, each answering its requests in flight, and exits 0', async () => {
    const own = await brsServe(env);
    expect(serverThreads(own)).toHaveLength(2);
    // Eight requests on their own connections (both threads get some), each body half
    // sent at the signal and finished a second later.
    const inFlight = Array.from(
      { length: 8 },
      () =>
        new Promise<number>((resolve, reject) => {
          const req = request(`${own.url}/v1/brand-note`, {
            method: 'POST',
            agent: false,
            headers: { 'x-api-key': key, 'content-type': 'application/json' },
          });
          req.on('response', (res) => {
            res.resume();
            resolve(res.statusCode!);
          });
          req.on('error', reject);
          const body = JSON.stringify({ brand: 'nowhere.example', text: 'Later.' });
          req.write(body.slice(0, 10));
          setTimeout(() => req.end(body.slice(10)), 1000);
        }),
    );
    await new Promise((r) => setTimeout(r, 200));
    await own.stop();
    // Answered (a note without its story's event_uri is a 400), not cut off.
    expect(await Promise.all(inFlight)).toEqual(Array(8).fill(400));
    expect(own.child.exitCode).toBe(0);
    expect(await listeners(own.url)).toBe(0);
  });
});
