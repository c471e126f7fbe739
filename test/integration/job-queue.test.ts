import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Clock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { type AppContext, createContext } from '../../src/context.js';
import { migrate } from '../../src/db/database.js';
import type { JobKind } from '../../src/jobs/kinds.js';
import { defineJob, enqueue, type JobRow, JobRunner } from '../../src/jobs/queue.js';
import { freshDatabase } from '../support/databases.js';
import { manualClock as movableClock } from '../support/manual-clock.js';

/**
 * The job queue's contract (`JobQueue` in src/jobs/queue.ts), on the database under test:
 * results stored, retries with backoff, failure after max attempts, a lapsed lease claimed
 * again, no job in two workers at once, jobs surviving a restart and a killed worker.
 */
const WORKER = fileURLToPath(new URL('../support/queue-worker.mjs', import.meta.url));
const BUILT_QUEUE = fileURLToPath(new URL('../../dist/jobs/queue.js', import.meta.url));

let url: string;
let drop: () => Promise<void>;
let dir: string;
/** Enqueues and reads rows; the runners under test get contexts of their own. */
let main: AppContext;
const opened: AppContext[] = [];
const runners: JobRunner[] = [];
const children = new Set<ChildProcess>();

beforeAll(async () => {
  ({ url, drop } = await freshDatabase());
  dir = mkdtempSync(join(tmpdir(), 'brs-queue-'));
  main = await createContext(loadConfig({ LOG_LEVEL: 'fatal', DATABASE_URL: url }));
  await migrate(main.db);
});
beforeEach(async () => {
  // Every runner claims any due job, so each test starts from an empty queue.
  await main.db.deleteFrom('jobs').execute();
});
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop()));
  await Promise.all(opened.splice(0).map((app) => app.close()));
});
afterAll(async () => {
  await Promise.all([...children].map(kill));
  await main?.close();
  await drop?.();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A context of its own on the same database, as another process would have. */
async function open(env: Record<string, string> = {}, clock?: Clock): Promise<AppContext> {
  const config = loadConfig({ LOG_LEVEL: 'fatal', JOB_POLL_MS: '50', ...env, DATABASE_URL: url });
  const app = await createContext(config, clock ? { clock } : {});
  opened.push(app);
  return app;
}

type JobHandler = (app: AppContext, payload: any, job: JobRow) => Promise<unknown>;
/** A kind of job of the tests', taking any payload. */
const kind = (name: string): JobKind<any> => ({ name, payload: z.any() });

function runner(app: AppContext, handlers: Record<string, JobHandler>): JobRunner {
  const r = new JobRunner(
    app,
    Object.entries(handlers).map(([name, handler]) => defineJob(kind(name), handler)),
  );
  runners.push(r);
  return r;
}

/** A clock that moves only when told to, from a fixed start. */
const manualClock = (start = '2030-01-01T00:00:00.000Z') => movableClock(start);

const at = (ms: number) => new Date(ms).toISOString();
const nowIso = () => new Date().toISOString();
const row = (id: string) =>
  main.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Polls `cond` until it holds; fails early if `child` exits meanwhile. */
async function waitFor(
  what: string,
  cond: () => boolean | Promise<boolean>,
  opts: { timeout?: number; child?: ChildProcess } = {},
) {
  const deadline = Date.now() + (opts.timeout ?? 10_000);
  for (;;) {
    if (await cond()) return;
    const child = opts.child;
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      throw new Error(`worker exited (${child.exitCode ?? child.signalCode}) before ${what}`);
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('job queue', () => {
  it('runs an enqueued job once and stores its result', async () => {
    const app = await open();
    const payloads: unknown[] = [];
    const r = runner(app, {
      'test.double': async (_app, payload: { n: number }) => {
        payloads.push(payload);
        return { doubled: payload.n * 2 };
      },
    });
    const id = await enqueue(main.db, kind('test.double'), { n: 21 }, { now: nowIso() });
    expect(await r.drain()).toBe(1);
    expect(await r.drain()).toBe(0);
    expect(payloads).toEqual([{ n: 21 }]);
    expect(await row(id)).toMatchObject({
      status: 'done',
      attempts: 1,
      result: JSON.stringify({ doubled: 42 }),
      last_error: null,
      locked_by: null,
      locked_until: null,
    });
  });

  it('checks a payload against its kind: refused at enqueue, and failed at once when unreadable at claim', async () => {
    const typed = { name: 'test.typed', payload: z.strictObject({ n: z.number() }) };
    await expect(
      enqueue(main.db, typed, { n: 'one' } as unknown as { n: number }, { now: nowIso() }),
    ).rejects.toThrow();
    expect(await main.db.selectFrom('jobs').selectAll().execute()).toEqual([]);
    // A row written by an older version, say, with a payload the handler cannot take.
    const id = await enqueue(main.db, kind('test.typed'), { n: 'one' }, { now: nowIso() });
    const ran: unknown[] = [];
    const app = await open();
    const r = new JobRunner(app, [defineJob(typed, async (_app, p) => ran.push(p))]);
    runners.push(r);
    expect(await r.drain()).toBe(1);
    expect(ran).toEqual([]);
    // No retry: running it again would change nothing.
    expect(await row(id)).toMatchObject({
      status: 'failed',
      attempts: 1,
      last_error: expect.stringMatching(/^payload: /),
    });
  });

  it('claims only the kinds it has a handler for: a job of another kind waits for its worker', async () => {
    const id = await enqueue(main.db, kind('test.elsewhere'), {}, { now: nowIso() });
    const app = await open();
    expect(await runner(app, { 'test.other': async () => 1 }).drain()).toBe(0);
    expect(await new JobRunner(app).drain()).toBe(0);
    expect(await row(id)).toMatchObject({ status: 'queued', attempts: 0 });
    expect(await runner(app, { 'test.elsewhere': async () => 2 }).drain()).toBe(1);
    expect(await row(id)).toMatchObject({ status: 'done' });
  });

  it('retries a failure after JOB_RETRY_BASE_MS, then twice that, and not before', async () => {
    const clock = manualClock();
    const t0 = clock.now().getTime();
    const app = await open({ JOB_RETRY_BASE_MS: '1000' }, clock);
    let calls = 0;
    const r = runner(app, {
      'test.flaky': async () => {
        calls++;
        if (calls <= 2) throw new Error(`failure ${calls}`);
        return 'ok';
      },
    });
    const id = await enqueue(main.db, kind('test.flaky'), {}, { now: at(t0) });

    expect(await r.drain()).toBe(1);
    expect(await row(id)).toMatchObject({
      status: 'queued',
      attempts: 1,
      last_error: 'failure 1',
      run_at: at(t0 + 1000),
      locked_by: null,
    });
    clock.advance(999);
    expect(await r.drain()).toBe(0);
    clock.advance(1);
    expect(await r.drain()).toBe(1);
    expect(await row(id)).toMatchObject({
      status: 'queued',
      attempts: 2,
      last_error: 'failure 2',
      run_at: at(t0 + 1000 + 2000),
    });
    clock.advance(1999);
    expect(await r.drain()).toBe(0);
    clock.advance(1);
    expect(await r.drain()).toBe(1);
    expect(await row(id)).toMatchObject({ status: 'done', attempts: 3, result: '"ok"' });
    expect(calls).toBe(3);
  });

  it('marks a job that keeps failing failed after its max attempts, and runs it no more', async () => {
    const clock = manualClock();
    const app = await open({ JOB_RETRY_BASE_MS: '1000' }, clock);
    let calls = 0;
    const r = runner(app, {
      'test.broken': async () => {
        calls++;
        throw new Error(`failure ${calls}`);
      },
    });
    const id = await enqueue(
      main.db,
      kind('test.broken'),
      {},
      { now: at(clock.now().getTime()), maxAttempts: 3 },
    );
    for (let i = 0; i < 3; i++) {
      expect(await r.drain()).toBe(1);
      clock.advance(60_000);
    }
    expect(await row(id)).toMatchObject({
      status: 'failed',
      attempts: 3,
      last_error: 'failure 3',
      locked_by: null,
    });
    clock.advance(24 * 3600_000);
    expect(await r.drain()).toBe(0);
    expect(calls).toBe(3);
  });

  it('gives a job up once, whether its last attempt threw or its process died on it', async () => {
    const clock = manualClock();
    const app = await open({ JOB_RETRY_BASE_MS: '1000' }, clock);
    const givenUp: [unknown, string][] = [];
    const r = new JobRunner(app, [
      defineJob(
        kind('test.doomed'),
        async () => {
          throw new Error('the model is down');
        },
        async (_app, payload, reason) => {
          givenUp.push([payload, reason]);
        },
      ),
    ]);
    runners.push(r);
    const now = () => at(clock.now().getTime());
    await enqueue(main.db, kind('test.doomed'), { n: 1 }, { now: now(), maxAttempts: 2 });
    expect(await r.drain()).toBe(1);
    expect(givenUp).toEqual([]);
    clock.advance(60_000);
    expect(await r.drain()).toBe(1);
    expect(givenUp).toEqual([[{ n: 1 }, 'the model is down']]);

    // The last attempt's process died: its lease runs out, and the job is given up.
    const dead = await enqueue(
      main.db,
      kind('test.doomed'),
      { n: 2 },
      { now: now(), maxAttempts: 1 },
    );
    await main.db
      .updateTable('jobs')
      .set({
        status: 'running',
        attempts: 1,
        locked_by: 'wrk_dead',
        locked_until: at(clock.now().getTime() - 1000),
      })
      .where('id', '=', dead)
      .execute();
    await r.drain();
    expect(givenUp).toEqual([
      [{ n: 1 }, 'the model is down'],
      [{ n: 2 }, 'lease expired on the last attempt'],
    ]);
    expect(await row(dead)).toMatchObject({ status: 'failed' });
    clock.advance(3600_000);
    await r.drain();
    expect(givenUp).toHaveLength(2);
  });

  it('leaves a job to its worker while the lease holds, and claims it again once it lapsed', async () => {
    const app = await open();
    let calls = 0;
    const r = runner(app, {
      'test.once': async () => {
        calls++;
        return 'rescued';
      },
    });
    const id = await enqueue(main.db, kind('test.once'), {}, { now: nowIso() });
    // Claimed by a worker that then vanished (its process died mid-job).
    const claimedBy = (lockedUntil: string) =>
      main.db
        .updateTable('jobs')
        .set({
          status: 'running',
          attempts: 1,
          locked_by: 'wrk_vanished',
          locked_until: lockedUntil,
        })
        .where('id', '=', id)
        .execute();
    await claimedBy(at(Date.now() + 60_000));
    expect(await r.drain()).toBe(0);
    await claimedBy(at(Date.now() - 1000));
    expect(await r.drain()).toBe(1);
    expect(calls).toBe(1);
    expect(await row(id)).toMatchObject({
      status: 'done',
      attempts: 2,
      result: '"rescued"',
      locked_by: null,
      locked_until: null,
    });
  });

  it.each([
    ['succeeds', async () => 'from the old owner'],
    [
      'fails',
      async () => {
        throw new Error('from the old owner');
      },
    ],
  ])('a late finish from a worker whose lease lapsed (it %s) changes nothing', async (_, late) => {
    const clock = manualClock();
    const env = { JOB_LEASE_MS: '60000', JOB_RETRY_BASE_MS: '1000' };
    // The old owner stalled: its time passes, but its timers (the lease renewals) never run.
    const stalled: Clock = { now: () => clock.now(), every: () => () => {} };
    const [a, b] = [await open(env, stalled), await open(env, clock)];
    const startedA = deferred<JobRow>();
    const startedB = deferred<JobRow>();
    const releaseA = deferred();
    const releaseB = deferred();
    const ra = runner(a, {
      'test.slow': async (_app, _p, job) => {
        startedA.resolve(job);
        await releaseA.promise;
        return late();
      },
    });
    const rb = runner(b, {
      'test.slow': async (_app, _p, job) => {
        startedB.resolve(job);
        await releaseB.promise;
        return 'from the new owner';
      },
    });
    const id = await enqueue(main.db, kind('test.slow'), {}, { now: at(clock.now().getTime()) });

    // A failed expectation must not leave a handler waiting, or stopping its runner hangs.
    try {
      const drainA = ra.drain();
      const jobA = await startedA.promise;
      expect(await rb.drain()).toBe(0);
      clock.advance(60_001);
      const drainB = rb.drain();
      const jobB = await startedB.promise;
      expect(jobB.locked_by).not.toBe(jobA.locked_by);

      releaseA.resolve();
      expect(await drainA).toBe(1);
      expect(await row(id)).toMatchObject({
        status: 'running',
        attempts: 2,
        locked_by: jobB.locked_by,
        result: null,
        last_error: null,
      });
      releaseB.resolve();
      expect(await drainB).toBe(1);
      expect(await row(id)).toMatchObject({
        status: 'done',
        attempts: 2,
        result: '"from the new owner"',
        locked_by: null,
      });
    } finally {
      releaseA.resolve();
      releaseB.resolve();
    }
  });

  it('two workers draining 40 jobs at once run each exactly once', async () => {
    const [a, b] = [await open(), await open()];
    const runs = new Map<string, number>();
    const handler: JobHandler = async (_app, _p, job) => {
      runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
      await sleep(Math.random() * 3);
      return null;
    };
    const ids: string[] = [];
    for (let i = 0; i < 40; i++)
      ids.push(await enqueue(main.db, kind('test.count'), { i }, { now: nowIso() }));
    const [ranA, ranB] = await Promise.all([
      runner(a, { 'test.count': handler }).drain(),
      runner(b, { 'test.count': handler }).drain(),
    ]);
    expect(ranA + ranB).toBe(40);
    // Both took part, or this proved nothing about concurrency.
    expect(ranA).toBeGreaterThan(0);
    expect(ranB).toBeGreaterThan(0);
    expect(ids.map((id) => runs.get(id))).toEqual(ids.map(() => 1));
    const statuses = await main.db.selectFrom('jobs').select('status').distinct().execute();
    expect(statuses).toEqual([{ status: 'done' }]);
  });

  it('renews the lease of a job longer than it, so a polling worker never takes it', async () => {
    const clock = manualClock();
    const env = { JOB_LEASE_MS: '300' };
    const [a, b] = [await open(env, clock), await open(env, clock)];
    const warnings: string[] = [];
    a.log = { warn: (_o: unknown, msg: string) => warnings.push(msg) } as any;
    let calls = 0;
    const gate = deferred<void>();
    const long: JobHandler = async () => {
      calls++;
      await gate.promise;
      return 'long';
    };
    const id = await enqueue(main.db, kind('test.long'), {}, { now: at(clock.now().getTime()) });
    const ra = runner(a, { 'test.long': long });
    const rb = runner(b, { 'test.long': long });
    const drainA = ra.drain();
    await waitFor('the job to start', () => calls === 1);
    // Ten lease lengths pass while the handler runs: renewed every third of one, the lease
    // never lapses, and the other worker never takes the job.
    for (let i = 0; i < 30; i++) {
      await clock.advance(100);
      expect(await rb.drain()).toBe(0);
    }
    gate.resolve();
    expect(await drainA).toBe(1);
    expect(calls).toBe(1);
    expect(await row(id)).toMatchObject({ status: 'done', attempts: 1, result: '"long"' });
    // The renewals stopped with the job: one more would find the claim gone and say so.
    await clock.advance(1000);
    expect(warnings).toEqual([]);
  });

  it('stopping waits for the job in hand; past the timeout it hands the claim back at once', async () => {
    const env = { JOB_LEASE_MS: '60000' };
    const [a, b] = [await open(env), await open(env)];
    const gate = deferred<void>();
    let calls = 0;
    const slow: JobHandler = async () => {
      calls++;
      await gate.promise;
      return 'slow';
    };
    // Within the timeout: the job finishes on the stopping worker.
    const first = await enqueue(main.db, kind('test.slow'), {}, { now: nowIso() });
    const ra = runner(a, { 'test.slow': slow });
    void ra.drain();
    await waitFor('the job to start', () => calls === 1);
    const stopped = ra.stop({ timeoutMs: 5000 });
    setTimeout(() => gate.resolve(), 50);
    await stopped;
    expect(await row(first)).toMatchObject({ status: 'done', attempts: 1 });

    // Past it: the claim is handed back (not after the 60 s lease), another worker runs it.
    const stuck = deferred<void>();
    const a2 = await open(env);
    const second = await enqueue(main.db, kind('test.stuck'), {}, { now: nowIso() });
    const rs = runner(a2, { 'test.stuck': () => stuck.promise });
    void rs.drain();
    await waitFor('the job to be claimed', async () => (await row(second)).status === 'running');
    const claimedBy = (await row(second)).locked_by;
    expect(claimedBy).toMatch(new RegExp(`^wrk_.+@.+:${process.pid}$`));
    await rs.stop({ timeoutMs: 50 });
    // Queued again, due now, its attempt given back (it was cut short, not failed).
    expect(await row(second)).toMatchObject({
      status: 'queued',
      attempts: 0,
      locked_by: null,
      locked_until: null,
    });
    // A later stop (the server's close, the context's) does not wait for the handler.
    await rs.stop();
    const rb = runner(b, { 'test.stuck': async () => 'ran elsewhere' });
    await sleep(5);
    expect(await rb.drain()).toBe(1);
    expect(await row(second)).toMatchObject({ status: 'done', attempts: 1 });
    stuck.resolve();
  });

  it('stops renewing the lease when the job fails', async () => {
    const clock = manualClock();
    const app = await open({ JOB_LEASE_MS: '300', JOB_RETRY_BASE_MS: '60000' }, clock);
    const warnings: string[] = [];
    app.log = { warn: (_o: unknown, msg: string) => warnings.push(msg) } as any;
    const gate = deferred<void>();
    let started = false;
    const r = runner(app, {
      'test.fails-late': async () => {
        started = true;
        await gate.promise;
        throw new Error('late failure');
      },
    });
    const id = await enqueue(
      main.db,
      kind('test.fails-late'),
      {},
      {
        now: at(clock.now().getTime()),
      },
    );
    const drained = r.drain();
    await waitFor('the job to start', () => started);
    await clock.advance(400);
    gate.resolve();
    expect(await drained).toBe(1);
    expect(await row(id)).toMatchObject({
      status: 'queued',
      attempts: 1,
      last_error: 'late failure',
      locked_by: null,
      locked_until: null,
    });
    await clock.advance(1000);
    expect(warnings).toEqual(['job failed']);
  });

  it('keeps jobs across a restart', async () => {
    const before = await open();
    const id = await enqueue(before.db, kind('test.durable'), { n: 7 }, { now: nowIso() });
    opened.splice(opened.indexOf(before), 1);
    await before.close();

    const after = await open();
    const r = runner(after, { 'test.durable': async (_app, p: { n: number }) => p.n });
    expect(await r.drain()).toBe(1);
    expect(await row(id)).toMatchObject({ status: 'done', attempts: 1, result: '7' });
  });

  it('a worker killed mid-job: after a restart the job completes exactly once', async () => {
    expect(existsSync(BUILT_QUEUE), 'dist/ is missing: run npm run build').toBe(true);
    const effects = join(dir, 'effects.log');
    writeFileSync(effects, '');
    const lines = () => readFileSync(effects, 'utf8').split('\n').filter(Boolean);
    const id = await enqueue(main.db, kind('test.effect'), {}, { now: nowIso() });

    const first = startWorker(effects);
    await waitFor('the first worker to start the job', () => lines().includes(`start ${id}`), {
      child: first,
    });
    await kill(first);
    expect(lines()).toEqual([`start ${id}`]);

    const second = startWorker(effects);
    await waitFor('the job to be done', async () => (await row(id)).status === 'done', {
      child: second,
      timeout: 15_000,
    });
    expect(lines()).toEqual([`start ${id}`, `start ${id}`, `effect ${id}`]);
    expect(await row(id)).toMatchObject({
      status: 'done',
      attempts: 2,
      result: JSON.stringify({ pid: second.pid }),
    });
    await kill(second);
  });
});

/** test/support/queue-worker.mjs on this database: the built runner, a 1 s lease. */
function startWorker(effects: string): ChildProcess {
  // Vitest sets BASE_URL to '/' for Vite's sake; the service would reject it.
  const { BASE_URL: _vite, ...env } = process.env;
  const child = spawn(process.execPath, [WORKER], {
    env: {
      ...env,
      DATABASE_URL: url,
      LOG_LEVEL: 'fatal',
      JOB_LEASE_MS: '1000',
      JOB_POLL_MS: '50',
      QUEUE_WORKER_LOG: effects,
      EFFECT_DELAY_MS: '1500',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.add(child);
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  children.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}
