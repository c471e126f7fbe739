import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { migrate } from '../../src/db/database.js';
import { buildServer } from '../../src/http/server.js';
import { shutdown } from '../../src/http/shutdown.js';
import type { JobKind } from '../../src/jobs/kinds.js';
import { defineJob, enqueue } from '../../src/jobs/queue.js';
import { freshDatabase } from '../support/databases.js';

/**
 * Shutting down (src/http/shutdown.ts) waits for a handler whose client went away before
 * it closes the database: the handler finishes its work instead of failing on a closed
 * pool (a 500 nobody reads, and a write cut in two). A job that outlives the timeout is
 * given back, and the shutdown ends.
 */
let drop: () => Promise<void>;
let url: string;

beforeAll(async () => {
  ({ url, drop } = await freshDatabase());
});
afterAll(() => drop?.());

it('waits for a running handler whose client left, then closes the database', async () => {
  const app = await createContext(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'fatal' }));
  await migrate(app.db);
  const server = await buildServer(app, { runJobs: false });
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let outcome: string | undefined;
  let started!: () => void;
  const running = new Promise<void>((r) => {
    started = r;
  });
  // A handler that reads the database after a wait, as a slow request does.
  server.get('/test/slow', async () => {
    started();
    await gate;
    try {
      await app.db.selectFrom('accounts').select('id').execute();
      outcome = 'read';
    } catch (e) {
      outcome = (e as Error).message;
    }
    return { ok: true };
  });
  const address = await server.listen({ port: 0, host: '127.0.0.1' });

  const client = new AbortController();
  const call = fetch(`${address}/test/slow`, { signal: client.signal }).catch(() => 'aborted');
  await running;
  client.abort();
  expect(await call).toBe('aborted');

  const stopped = shutdown(server, app);
  await new Promise((r) => setTimeout(r, 100));
  expect(outcome, 'the handler still waits').toBeUndefined();
  release();
  await stopped;
  expect(outcome).toBe('read');
});

it('gives up a job still running past SHUTDOWN_TIMEOUT_MS: it is queued again and the shutdown ends', async () => {
  const app = await createContext(
    loadConfig({
      DATABASE_URL: url,
      LOG_LEVEL: 'fatal',
      JOB_POLL_MS: '20',
      SHUTDOWN_TIMEOUT_MS: '300',
      CONNECTORS: '',
    }),
  );
  await migrate(app.db);
  const stuck: JobKind<Record<string, never>> = { name: 'test.stuck', payload: z.object({}) };
  let started = false;
  app.jobs.register([
    defineJob(stuck, async () => {
      started = true;
      await new Promise(() => {}); // never ends
    }),
  ]);
  const server = await buildServer(app);
  await server.listen({ port: 0, host: '127.0.0.1' });
  const id = await enqueue(app.db, stuck, {}, { now: new Date().toISOString() });
  for (let i = 0; i < 200 && !started; i++) await new Promise((r) => setTimeout(r, 10));
  expect(started).toBe(true);

  const readJob = async () => {
    const check = await createContext(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'fatal' }));
    try {
      return await check.db
        .selectFrom('jobs')
        .select(['status', 'attempts', 'locked_by'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    } finally {
      await check.close();
    }
  };
  const t = Date.now();
  await shutdown(server, app);
  expect(Date.now() - t).toBeLessThan(3000);
  expect(await readJob()).toEqual({ status: 'queued', attempts: 0, locked_by: null });
});
