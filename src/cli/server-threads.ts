import { once } from 'node:events';
import { createServer } from 'node:net';
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { Config } from '../config.js';
import type { AppContext } from '../context.js';
import { SharedRateLimiter } from '../http/shared-rate-limiter.js';

/**
 * WORKERS > 1: the server runs as that many threads of this process, each a whole server
 * (its own database connections, job runner and event loop) listening on the same port with
 * SO_REUSEPORT, so the kernel spreads the connections over them. Threads rather than
 * processes because they can share memory: without Redis, the rate-limit windows are one
 * table every thread counts in directly (http/shared-rate-limiter.ts), where a cluster's
 * workers had to ask their primary for each request (a fifth of their CPU:
 * docs/benchmarks.md). A thread that dies is replaced; the process lives on.
 */

/** What a server thread is handed. */
export interface ThreadData {
  /** The command's configuration (plain data). */
  config: Config;
  port: number;
  /** The rate-limit table, without Redis. */
  windows?: SharedArrayBuffer;
  /** Its number, 1 to WORKERS (a replacement takes the number of the thread it replaces). */
  thread: number;
}

/** Messages between this thread and a server thread. */
export const BUILT = 'brs:built';
export const LISTENING = 'brs:listening';
export const LISTEN = 'brs:listen';
export const STOP = 'brs:stop';

/**
 * V8 flags the server threads run with unless the operator chose otherwise (the same flag,
 * or its `--no-` form, on the command line or in NODE_OPTIONS), each as the pattern that
 * recognises the operator's choice and the flag to add. V8's flags are the process's: they
 * are set here before the threads' heaps are made, and apply to them all.
 *
 * - A 64 MiB young generation. A request makes short-lived garbage only; with V8's default
 *   semi-space the workers collected it tens of times a second under load, each
 *   collection a pause for every request in flight. At 64 MiB the bench served 8 to 10%
 *   more requests with a p99 2 to 3 ms lower, and no higher peak memory. (On a machine
 *   with much memory, V8 now picks 64 MiB itself.)
 * - No allocation-site pretenuring. V8 allocates straight into the old generation the
 *   objects of an allocation site whose objects survived a young collection. In 5 workers
 *   of 12 it decided so for a site of the request path, and then every young collection
 *   found about 5 MB of finished requests still reachable from those old objects (dead,
 *   but only a full collection can tell) and promoted them: pauses of 6 to 10 ms instead
 *   of 2 and frequent full collections, for as long as the process lived.
 *   Without it: none in eight workers, and `get_story` used 6% less CPU with a lower p99.
 *
 * docs/benchmarks.md has the measurements.
 */
const SERVER_V8_FLAGS: [chosen: RegExp, flag: string][] = [
  [/^--max[-_]semi[-_]space[-_]size\b/, '--max-semi-space-size=64'],
  [/^--(no[-_])?allocation[-_]site[-_]pretenuring$/, '--no-allocation-site-pretenuring'],
];

/** The flags of SERVER_V8_FLAGS the operator did not choose, in execArgv or NODE_OPTIONS. */
export function serverV8Flags(execArgv: string[], nodeOptions = ''): string[] {
  // NODE_OPTIONS may quote a flag ("--max-semi-space-size=16"); Node takes it so.
  const given = [
    ...execArgv,
    ...nodeOptions.split(/\s+/).map((f) => f.replace(/^(["'])(.*)\1$/, '$2')),
  ];
  return SERVER_V8_FLAGS.filter(([chosen]) => !given.some((f) => chosen.test(f))).map(
    ([, flag]) => flag,
  );
}

/**
 * The port the threads will share: `port`, or one free when it is 0. Bound once without
 * SO_REUSEPORT and let go, so a port another server holds (even one with SO_REUSEPORT, such
 * as a second `brs serve` with WORKERS) is an error here rather than a port silently shared.
 */
async function claimPort(host: string, port: number): Promise<number> {
  const probe = createServer();
  probe.listen({ port, host });
  await once(probe, 'listening'); // rejects with the 'error' (EADDRINUSE) instead
  const claimed = (probe.address() as { port: number }).port;
  probe.close();
  await once(probe, 'close');
  return claimed;
}

/** Where the kernel spreads connections over sockets sharing a port (node's `reusePort`). */
const BALANCING_PLATFORMS: string[] = ['linux', 'freebsd'];

export interface ServerThreads {
  port: number;
  /** Stops every thread as SIGTERM stops a server (http/shutdown.ts) and waits for them. */
  stop(): Promise<void>;
}

/**
 * Starts `config.workers` server threads on one port. They start listening together, once
 * every one is built: building one takes a second, and a thread listening a second before
 * the others got every connection a balancer or a client opened meanwhile, and kept them
 * as long as they lived while the other CPUs idled (docs/benchmarks.md). A thread that
 * dies after it listened is replaced at once; one that fails before is a start-up error.
 */
export async function startServerThreads(
  config: Config,
  app: AppContext,
  entry: URL = new URL('./server-thread.js', import.meta.url),
): Promise<ServerThreads> {
  if (!BALANCING_PLATFORMS.includes(process.platform)) {
    throw new Error(
      `WORKERS > 1 needs SO_REUSEPORT balancing, which ${process.platform} lacks (Linux and FreeBSD have it): run WORKERS=1 here`,
    );
  }
  for (const flag of serverV8Flags(process.execArgv, process.env.NODE_OPTIONS)) {
    v8.setFlagsFromString(flag);
  }
  const data: Omit<ThreadData, 'thread'> = {
    config,
    port: await claimPort(config.host, config.port),
    windows: app.limiter instanceof SharedRateLimiter ? app.limiter.buffer : undefined,
  };
  const threads = new Set<Worker>();
  let stopping = false;
  let released = false;
  const built: Worker[] = [];

  const start = (n: number) =>
    new Promise<void>((resolve, reject) => {
      const workerData: ThreadData = { ...data, thread: n };
      const thread = new Worker(entry, { name: `brs-server-${n}`, workerData });
      threads.add(thread);
      let listening = false;
      thread.on('message', (m) => {
        if (m === BUILT && !stopping) {
          if (released) return thread.postMessage(LISTEN);
          built.push(thread);
          if (built.length < config.workers) return;
          released = true;
          for (const t of built) t.postMessage(LISTEN);
        } else if (m === LISTENING) {
          listening = true;
          resolve();
        }
      });
      // An exception nothing caught: the thread stops, and says why here.
      thread.on('error', (e) => {
        process.stderr.write(`brs: server thread ${n}: ${e.stack ?? e}\n`);
      });
      thread.once('exit', (code) => {
        threads.delete(thread);
        if (stopping) return;
        if (!listening) return reject(new Error(`a server thread exited at start (${code})`));
        process.stderr.write(`server thread ${n} exited (${code}); starting another\n`);
        start(n).catch((e) => {
          process.stderr.write(`${e.message}\n`);
          process.exit(1);
        });
      });
    });

  const stop = async () => {
    stopping = true;
    // Each thread bounds its own drain (http/shutdown.ts); one whose event loop is stuck
    // never reads the message, and is ended once the drain's bounds are past.
    const { shutdownDelayMs, shutdownTimeoutMs } = config.http;
    const stuck = setTimeout(
      () => {
        for (const t of threads) t.terminate();
      },
      shutdownDelayMs + shutdownTimeoutMs + 10_000,
    );
    await Promise.all(
      [...threads].map((t) => {
        const exited = once(t, 'exit');
        t.postMessage(STOP);
        return exited;
      }),
    );
    clearTimeout(stuck);
  };
  try {
    await Promise.all(Array.from({ length: config.workers }, (_, i) => start(i + 1)));
  } catch (e) {
    stopping = true;
    await Promise.all([...threads].map((t) => t.terminate()));
    throw e;
  }
  return { port: data.port, stop };
}
