import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Config } from '../config.js';
import { type AppContext, createContext } from '../context.js';
import { migrate } from '../db/database.js';
import { DEMO_PASSWORD, seedDemo } from '../demo/seed-demo.js';
import { hasAccounts } from '../domain/accounts.js';
import { ClusterRateLimiter, serveRateLimitToWorkers } from '../http/cluster-rate-limiter.js';
import { MemoryRateLimiter } from '../http/rate-limiter.js';
import { buildServer } from '../http/server.js';
import { shutdown } from '../http/shutdown.js';

type Banner = (url: string) => Promise<string>;

/**
 * V8 flags the server workers run with unless the operator chose otherwise (the same flag,
 * or its `--no-` form, on the command line or in NODE_OPTIONS), each as the pattern that
 * recognises the operator's choice and the flag to add:
 *
 * - A 64 MiB young generation. A request makes short-lived garbage only; with V8's default
 *   semi-space the workers collected it tens of times a second under load, each
 *   collection a pause for every request in flight. At 64 MiB the bench served 8 to 10%
 *   more requests with a p99 2 to 3 ms lower, and no higher peak memory.
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
const WORKER_V8_FLAGS: [chosen: RegExp, flag: string][] = [
  [/^--max[-_]semi[-_]space[-_]size\b/, '--max-semi-space-size=64'],
  [/^--(no[-_])?allocation[-_]site[-_]pretenuring$/, '--no-allocation-site-pretenuring'],
];

/** Node's flags for the server workers: this process's, plus WORKER_V8_FLAGS not chosen. */
export function workerNodeFlags(execArgv: string[], nodeOptions = ''): string[] {
  // NODE_OPTIONS may quote a flag ("--max-semi-space-size=16"); Node takes it so.
  const given = [
    ...execArgv,
    ...nodeOptions.split(/\s+/).map((f) => f.replace(/^(["'])(.*)\1$/, '$2')),
  ];
  const added = WORKER_V8_FLAGS.filter(([chosen]) => !given.some((f) => chosen.test(f)));
  return [...execArgv, ...added.map(([, flag]) => flag)];
}

/**
 * Runs the server until SIGINT/SIGTERM, then drains requests and jobs (http/shutdown.ts).
 * With WORKERS > 1 this process becomes the cluster's primary: it migrates once, forks the
 * workers that share the port, keeps their rate-limit windows (unless Redis does) and
 * prints the banner once they all listen.
 */
export async function serve(config: Config, opts: { json: boolean; banner?: Banner }) {
  if (cluster.isWorker) return serveAsWorker(config);
  const app = await createContext(config);
  await migrateForServing(app);
  if (config.workers > 1) return servePrimary(config, app, opts);

  const server = await buildServer(app);
  const address = await server.listen({ port: config.port, host: config.host });
  await announce(config, address, opts);
  const stop = async () => {
    await shutdown(server, app);
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** Migrates; a database a newer release migrated already is served as it is, said once. */
async function migrateForServing(app: AppContext) {
  const { ahead } = await migrate(app.db);
  if (ahead.length > 0) {
    process.stderr.write(
      `brs: the database schema is ahead of this version (${ahead.join(', ')}); serving on it, as migrations are additive\n`,
    );
  }
}

async function announce(config: Config, address: string, opts: { json: boolean; banner?: Banner }) {
  const url = config.port === 0 ? address : config.baseUrl;
  if (opts.json) process.stdout.write(`${JSON.stringify({ url })}\n`);
  else
    process.stdout.write(opts.banner ? await opts.banner(url) : `Stories is listening on ${url}\n`);
}

async function serveAsWorker(config: Config) {
  // Without Redis, the primary keeps the windows, so a key's 120 hold across processes.
  const limiter = config.redisUrl ? undefined : new ClusterRateLimiter();
  let app: AppContext | undefined;
  let server: Awaited<ReturnType<typeof buildServer>>;
  try {
    app = await createContext(config, limiter ? { limiter } : {});
    server = await buildServer(app);
    await server.ready();
    await primarySaysListen();
    await server.listen({ port: config.port, host: config.host });
  } catch (e) {
    // Exit for real (the IPC channel would keep the process alive) so the primary sees it,
    // and the others, waiting to listen together, stop too.
    process.stderr.write(`brs: ${(e as Error).message}\n`);
    await app?.close();
    process.exit(1);
  }
  const running = app;
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await shutdown(server, running);
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  // Ctrl-C reaches the whole process group; the primary decides when workers stop.
  process.on('SIGINT', () => {});
}

/** The start-up messages between a worker and the primary (rate-limit calls share the channel). */
const BUILT = { brsWorker: 'built' } as const;
const LISTEN = { brsWorker: 'listen' } as const;
const is = (m: unknown, what: typeof BUILT | typeof LISTEN) =>
  (m as { brsWorker?: unknown } | null)?.brsWorker === what.brsWorker;

/**
 * In a worker: tells the primary it is built and resolves when the primary says to listen.
 * The primary accepts connections from the first worker's listen on and hands each to a
 * worker listening then: a worker that listened a second before the others (building one
 * takes that long) got every connection a load balancer or a client opened meanwhile, and
 * kept them as long as they lived, while the other CPUs idled (the bench's first scenario
 * ran on one worker: docs/benchmarks.md).
 */
function primarySaysListen(): Promise<void> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      if (!is(m, LISTEN)) return;
      process.off('message', onMessage);
      resolve();
    };
    process.on('message', onMessage);
    process.send!(BUILT);
  });
}

async function servePrimary(
  config: Config,
  app: AppContext,
  opts: { json: boolean; banner?: Banner },
) {
  // Without Redis the windows are this process's (createContext), shared with the workers.
  if (app.limiter instanceof MemoryRateLimiter) serveRateLimitToWorkers(app.limiter);
  cluster.setupPrimary({ execArgv: workerNodeFlags(process.execArgv, process.env.NODE_OPTIONS) });
  let stopping = false;
  let port = config.port;

  // The workers start listening together, once every one of them is built (see
  // primarySaysListen); a worker built after that, in place of one that died, at once.
  let released = false;
  const built: Worker[] = [];
  const listen = (w: Worker) => {
    if (w.isConnected()) w.send(LISTEN);
  };
  const onBuilt = (worker: Worker) => {
    if (stopping) return;
    if (released) return listen(worker);
    built.push(worker);
    if (built.length < config.workers) return;
    released = true;
    for (const w of built) listen(w);
  };

  // A worker that fails before it ever listened is a start-up error: stop, do not loop.
  const fork = () =>
    new Promise<void>((resolve, reject) => {
      const worker = cluster.fork();
      const whenBuilt = (m: unknown) => {
        if (!is(m, BUILT)) return;
        worker.off('message', whenBuilt);
        onBuilt(worker);
      };
      worker.on('message', whenBuilt);
      let listening = false;
      worker.once('listening', (a) => {
        listening = true;
        port = a.port; // with PORT=0 the workers share one port the primary picked
        resolve();
      });
      worker.once('exit', (code, signal) => {
        if (stopping) return;
        if (!listening)
          return reject(new Error(`a server worker exited at start (${signal ?? code})`));
        process.stderr.write(
          `server worker ${worker.process.pid} exited (${signal ?? code}); starting another\n`,
        );
        fork().catch((e) => {
          process.stderr.write(`${e.message}\n`);
          process.exit(1);
        });
      });
    });

  try {
    await Promise.all(Array.from({ length: config.workers }, fork));
  } catch (e) {
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    await app.close();
    throw e;
  }
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  await announce(config, `http://${host}:${port}`, opts);

  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);
    await Promise.all(
      workers.map((w) => {
        const exited = once(w, 'exit');
        w.process.kill('SIGTERM');
        return exited;
      }),
    );
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/**
 * `npm start`: the quickstart. Seeds the demo into an empty database and keeps its keys
 * in a file beside the data (keys are stored hashed, so this is the only way to print the
 * demo key again on the next start).
 */
export async function start(config: Config, opts: { json: boolean }) {
  if (cluster.isWorker) return serve(config, opts);
  const credentials = join(
    config.database.dialect === 'sqlite' ? dirname(config.database.file) : 'data',
    'demo-credentials.json',
  );
  const app = await createContext(config);
  try {
    await migrateForServing(app);
    if (!(await hasAccounts(app))) {
      const demo = await seedDemo(app);
      await mkdir(dirname(credentials), { recursive: true });
      await writeFile(credentials, JSON.stringify(demo, null, 2), { mode: 0o600 });
    }
  } finally {
    await app.close();
  }
  const demo = await readFile(credentials, 'utf8')
    .then(JSON.parse)
    .catch(() => null);
  await serve(config, {
    json: opts.json,
    banner: async (url) => {
      const key: string | undefined = demo?.keys?.northwind_owner?.key;
      const lines = [`Stories is listening on ${url}`, `API docs:       ${url}/docs`];
      if (key) {
        lines.push(
          `Demo API key:   ${key}   (Northwind Communications, owner, full scope)`,
          'Try it:',
          `  curl -s -H 'x-api-key: ${key}' '${url}/v1/stories?brand=acme.com'`,
          `Portal:         ${url}/app   (owner@northwind.example / ${DEMO_PASSWORD})`,
          `Other demo keys and users: ${credentials}`,
        );
      }
      return `${lines.join('\n')}\n`;
    },
  });
}
