import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Config } from '../config.js';
import { type AppContext, createContext } from '../context.js';
import { migrate } from '../db/database.js';
import { DEMO_PASSWORD, seedDemo } from '../demo/seed-demo.js';
import { hasAccounts } from '../domain/accounts.js';
import { buildServer } from '../http/server.js';
import { SharedRateLimiter } from '../http/shared-rate-limiter.js';
import { shutdown } from '../http/shutdown.js';
import { type ServerThreads, startServerThreads } from './server-threads.js';

type Banner = (url: string) => Promise<string>;

/**
 * Runs the server until SIGINT/SIGTERM, then drains requests and jobs (http/shutdown.ts).
 * With WORKERS > 1 the server runs as that many threads on one port (server-threads.ts),
 * counting in one rate-limit table unless Redis keeps the windows; this thread migrates
 * once and prints the banner once they all listen.
 */
export async function serve(config: Config, opts: { json: boolean; banner?: Banner }) {
  const threaded = config.workers > 1;
  const app = await createContext(
    config,
    threaded && !config.redisUrl ? { limiter: new SharedRateLimiter() } : {},
  );
  await migrateForServing(app);
  if (threaded) return serveThreads(config, app, opts);

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

async function serveThreads(
  config: Config,
  app: AppContext,
  opts: { json: boolean; banner?: Banner },
) {
  let threads: ServerThreads;
  try {
    threads = await startServerThreads(config, app);
  } catch (e) {
    await app.close();
    throw e;
  }
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  await announce(config, `http://${host}:${threads.port}`, opts);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await threads.stop();
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
