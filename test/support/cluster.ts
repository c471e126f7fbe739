import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.js';
import { type AppContext, createContext } from '../../src/context.js';
import { migrate } from '../../src/db/database.js';
import { brsServe } from './cli.js';
import { freshDatabase, REDIS_URL } from './databases.js';
import { freePort } from './harness.js';
import { seedWorld, type World } from './world.js';

const HAPROXY_CONFIG = fileURLToPath(new URL('../../deploy/haproxy.cfg', import.meta.url));

export interface Instance {
  name: string;
  url: string;
  child: ChildProcess;
  stop: () => Promise<void>;
  /** Starts the instance again on its port (after it was killed or stopped). */
  restart: () => Promise<void>;
}

export interface Cluster {
  /** The balancer's address: BASE_URL of every instance. */
  url: string;
  databaseUrl: string;
  /** Each instance's own address, to reach one on purpose. */
  instances: Instance[];
  world: World;
  /**
   * Reads the cluster's database directly, as a test checks what was written; `app` is a
   * context on it with the instances' environment, for a test's own setup.
   */
  query: <T>(read: (db: AppContext['db'], app: AppContext) => Promise<T>) => Promise<T>;
  /** The webhook delivery a `webhook.deliver` job is for. */
  deliveryOf: (job: { payload: string }) => Promise<{
    event_id: string;
    status: string;
    attempts: number;
  }>;
  /** The instance that holds a job's claim (jobs.locked_by names the process). */
  holderOf: (jobId: string) => Promise<Instance | undefined>;
  stop: () => Promise<void>;
}

/**
 * Three instances of `brs serve`, separate processes on their own ports as three machines
 * would run them, on one fresh PostgreSQL database and the test Redis, behind HAProxy
 * with the configuration the repository ships (deploy/haproxy.cfg). The world of
 * test/support/world.ts is seeded before they start.
 */
export async function startCluster(env: Record<string, string> = {}): Promise<Cluster> {
  const db = await freshDatabase();
  const lbPort = await freePort();
  const url = `http://127.0.0.1:${lbPort}`;
  const seeder = await createContext(
    loadConfig({ DATABASE_URL: db.url, BASE_URL: url, LOG_LEVEL: 'fatal', CONNECTORS: '' }),
  );
  await migrate(seeder.db);
  const world = await seedWorld(seeder);
  await seeder.close();

  const instances: Cluster['instances'] = [];
  for (const name of ['s1', 's2', 's3']) {
    const port = await freePort();
    const start = async () => {
      const { child, stop } = await brsServe({
        DATABASE_URL: db.url,
        REDIS_URL,
        BASE_URL: url,
        PORT: String(port),
        HOST: '127.0.0.1',
        WORKERS: '1',
        TRUST_PROXY: '1',
        ...env,
      });
      return { child, stop };
    };
    // (It prints BASE_URL, the balancer's; its own address is the port it was given.)
    const instance: Instance = {
      name,
      url: `http://127.0.0.1:${port}`,
      ...(await start()),
      async restart() {
        await instance.stop();
        Object.assign(instance, await start());
      },
    };
    instances.push(instance);
  }
  const balancer = spawn('haproxy', ['-db', '-f', HAPROXY_CONFIG], {
    env: {
      ...process.env,
      STORIES_LB_BIND: `127.0.0.1:${lbPort}`,
      STORIES_S1: new URL(instances[0]!.url).host,
      STORIES_S2: new URL(instances[1]!.url).host,
      STORIES_S3: new URL(instances[2]!.url).host,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let balancerLog = '';
  balancer.stderr!.on('data', (d) => {
    balancerLog += d;
  });
  await untilAllServe(url, () => `${instances.map((i) => i.url).join(' ')} ${balancerLog}`);

  const query: Cluster['query'] = async (read) => {
    const app = await createContext(
      loadConfig({
        DATABASE_URL: db.url,
        LOG_LEVEL: 'fatal',
        BASE_URL: url,
        CONNECTORS: '',
        ...env,
      }),
    );
    try {
      return await read(app.db, app);
    } finally {
      await app.close();
    }
  };
  return {
    url,
    databaseUrl: db.url,
    instances,
    world,
    query,
    deliveryOf: (job) =>
      query((db) =>
        db
          .selectFrom('webhook_deliveries')
          .select(['event_id', 'status', 'attempts'])
          .where('id', '=', JSON.parse(job.payload).delivery)
          .executeTakeFirstOrThrow(),
      ),
    async holderOf(jobId) {
      const job = await query((db) =>
        db.selectFrom('jobs').select('locked_by').where('id', '=', jobId).executeTakeFirst(),
      );
      const pid = Number(job?.locked_by?.split(':').pop());
      return instances.find((i) => i.child.pid === pid);
    },
    async stop() {
      const exited = once(balancer, 'exit');
      balancer.kill('SIGTERM');
      await exited;
      for (const i of instances) await i.stop();
      await db.drop();
    },
  };
}

/** Waits until the balancer has seen every instance healthy (each answers in turn). */
async function untilAllServe(url: string, log: () => string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const seen = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${url}/readyz`).catch(() => undefined);
      if (res?.ok) seen.add(res.headers.get('x-served-by') ?? '');
    }
    if (seen.size === 3) return;
    if (Date.now() > deadline) throw new Error(`the cluster at ${url} did not come up: ${log()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
