import { once } from 'node:events';
import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { type AppContext, createContext } from '../../src/context.js';
import { migrate } from '../../src/db/database.js';
import { buildServer } from '../../src/http/server.js';
import { freshDatabase } from './databases.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

export interface RequestOptions {
  key?: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Sent as is instead of JSON-encoding `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestService {
  url: string;
  app: AppContext;
  server: FastifyInstance;
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<ApiResponse<T>>;
  /** Every status this suite's requests got, to prove no request produced a 5xx. */
  statuses: number[];
  close(): Promise<void>;
}

/**
 * A real server on a loopback port over a fresh database of the dialect under test.
 * `close` fails the suite if any request answered 5xx: a 500 is always a bug.
 */
export async function startService(
  env: Record<string, string> = {},
  opts: { runJobs?: boolean; clock?: Clock } = {},
): Promise<TestService> {
  const db = await freshDatabase();
  // The port is chosen first so BASE_URL, and every link the service writes, is right.
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    LOG_LEVEL: 'fatal',
    // Connectors ask the internet; a test that wants them names them (and local servers).
    CONNECTORS: '',
    ...env,
    DATABASE_URL: db.url,
    PORT: String(port),
    // A test may put the service behind its own front (a proxy) and name that instead.
    BASE_URL: env.BASE_URL ?? url,
  });
  const app = await createContext(config, opts.clock ? { clock: opts.clock } : {});
  await migrate(app.db);
  const server = await buildServer(app, { runJobs: opts.runJobs });
  // The requests in flight, to name them if closing waits on one.
  const inFlight = new Map<string, string>();
  server.addHook('onRequest', async (req) => {
    inFlight.set(req.id, `${req.method} ${req.url}`);
  });
  server.addHook('onResponse', async (req) => {
    inFlight.delete(req.id);
  });
  await server.listen({ port, host: '127.0.0.1' });
  const statuses: number[] = [];

  async function request(method: string, path: string, opts: RequestOptions = {}) {
    const target = new URL(path, url);
    for (const [k, v] of Object.entries(opts.query ?? {})) {
      if (v !== undefined) target.searchParams.set(k, String(v));
    }
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key !== undefined) headers['x-api-key'] = opts.key;
    let payload: string | undefined = opts.rawBody;
    if (payload === undefined && opts.body !== undefined) payload = JSON.stringify(opts.body);
    if (
      payload !== undefined &&
      !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')
    ) {
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(target, { method, headers, body: payload });
    const text = await res.text();
    statuses.push(res.status);
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: body as any };
  }

  return {
    url,
    app,
    server,
    request,
    statuses,
    async close() {
      // A step that runs long says so while it runs: a close that ran past the hook's
      // timeout was seen now and then under a full run's load. The server's close waits
      // for the requests in flight: after 10 s they are named, and their connections cut,
      // so a teardown cannot outlast the hook (the request is reported, not waited on).
      const timed = async (name: string, step: () => Promise<unknown>) => {
        const warn = setTimeout(() => {
          const pending = [...inFlight.values()].join(', ') || 'none';
          console.warn(`closing ${url}: ${name} still running after 5 s; in flight: ${pending}`);
        }, 5000);
        try {
          await step();
        } finally {
          clearTimeout(warn);
        }
      };
      // Node ends the idle kept-alive connections once, as the close begins: one whose
      // request finishes after that stays open for its keep-alive timeout (72 s), past the
      // hook's ("in flight: none" in the warning), so idle ones are ended until it is done.
      const idle = setInterval(() => server.server.closeIdleConnections(), 100);
      const cut = setTimeout(() => server.server.closeAllConnections(), 10_000);
      await timed('server.close', () => server.close()).finally(() => {
        clearInterval(idle);
        clearTimeout(cut);
      });
      await timed('app.close', () => app.close());
      await timed('db.drop', () => db.drop());
      const errors = statuses.filter((s) => s >= 500);
      if (errors.length > 0) throw new Error(`requests answered 5xx: ${errors.join(', ')}`);
    },
  };
}

export async function freePort(): Promise<number> {
  const srv = createServer().listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}
