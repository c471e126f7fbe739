import { hostname } from 'node:os';
import { type ExpressionBuilder, sql } from 'kysely';
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import type { DB, JobsTable } from '../db/schema.js';
import { newId } from '../ids.js';
import { within } from '../within.js';
import { decodePayload, encodePayload, type JobKind } from './kinds.js';

/**
 * Background work as rows of the jobs table, on both databases. A job is enqueued in the
 * same transaction as the change that needs it, so it exists exactly when that change
 * does. Any number of processes run jobs: a claim is one atomic UPDATE (PostgreSQL skips
 * rows another process has locked; SQLite has a single writer), and a claim expires after
 * its lease (JOB_LEASE_MS), so a job whose process died runs again. The owner renews the
 * lease while its handler runs, so a job longer than the lease is not taken from a live
 * worker. Handlers must still be safe to run twice (each checks the state it is about to
 * change): a worker that dies after its handler's effect and before `finish` leaves a job
 * that runs again.
 */
export type JobRow = JobsTable;
/** A kind of job with what runs it (handlers.ts). */
export interface JobDefinition<P = never> {
  kind: JobKind<P>;
  handler: (app: AppContext, payload: P, job: JobRow) => Promise<unknown>;
  /**
   * Runs once a job of this kind has failed for good: its last attempt threw, or the
   * process running its last attempt died (its lease ran out). What the job left waiting
   * is settled here, so nothing waits for a job that will never run again.
   */
  onGiveUp?: (app: AppContext, payload: P, reason: string) => Promise<void>;
}

/** A handler for a kind of job; its payload's type is the kind's. */
export const defineJob = <P>(
  kind: JobKind<P>,
  handler: (app: AppContext, payload: P, job: JobRow) => Promise<unknown>,
  onGiveUp?: (app: AppContext, payload: P, reason: string) => Promise<void>,
): JobDefinition<P> => ({ kind, handler, ...(onGiveUp && { onGiveUp }) });

const LEASE_EXPIRED = 'lease expired on the last attempt';

/** A payload a handler cannot take fails its job at once: running it again changes nothing. */
class UnreadablePayload extends Error {}

/**
 * What runs the queue, the same on SQLite and PostgreSQL (test/integration/job-queue.test.ts
 * is its contract): a due job runs and its result is stored; a failure is retried after
 * JOB_RETRY_BASE_MS, doubled each attempt, until the job's max attempts, then it is failed;
 * a job whose worker died is claimed again once its lease lapses; no job runs in two
 * workers at once; jobs are rows, so they survive a restart. Jobs are added with `enqueue`,
 * a function of a database handle rather than a method, so it joins the caller's transaction.
 */
export interface JobQueue {
  /** Runs every job that is due now, one after another; answers how many ran. */
  drain(): Promise<number>;
  /** Polls for due jobs every JOB_POLL_MS until stopped. */
  start(): void;
  /**
   * Stops polling and waits for the job in hand; after `timeoutMs`, gives it back (queued
   * and due, its attempt returned) so another process runs it at once instead of after
   * the lease.
   */
  stop(opts?: { timeoutMs?: number }): Promise<void>;
}

export async function enqueue<P>(
  db: Db,
  kind: JobKind<P>,
  payload: P,
  opts: { runAt?: string; maxAttempts?: number; now: string },
): Promise<string> {
  // A payload its handler could not take is a bug here, not a job that fails later.
  kind.payload.parse(payload);
  const name = kind.name;
  const id = newId('job');
  await db
    .insertInto('jobs')
    .values({
      id,
      name,
      payload: encodePayload(kind, payload),
      status: 'queued',
      attempts: 0,
      max_attempts: opts.maxAttempts ?? 8,
      run_at: opts.runAt ?? opts.now,
      locked_until: null,
      locked_by: null,
      last_error: null,
      result: null,
      created_at: opts.now,
      updated_at: opts.now,
    })
    .execute();
  return id;
}

/** A job that may be claimed at `at`: queued and due, or running with its lease run out. */
const due = (at: string) => (eb: ExpressionBuilder<DB, 'jobs'>) =>
  eb.or([
    eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', at)]),
    eb.and([eb('status', '=', 'running'), eb('locked_until', '<', at)]),
  ]);

/**
 * Takes the next due job (or one whose lease ran out) of the kinds this worker runs, or
 * undefined: a process never claims a job it has no handler for.
 */
async function claim(
  app: AppContext,
  worker: string,
  kinds: readonly string[],
  abandoned: Pick<JobRow, 'id' | 'name' | 'payload'>[],
): Promise<JobRow | undefined> {
  if (kinds.length === 0) return undefined;
  const now = app.clock.now();
  const at = now.toISOString();
  // Looked for first with a read, which never waits: an UPDATE takes SQLite's write lock
  // even when it changes nothing, and while another process holds that lock every idle
  // poll would block this process for the whole busy timeout.
  const any = await app.db
    .selectFrom('jobs')
    .select('id')
    .where(due(at))
    .where('name', 'in', kinds)
    .limit(1)
    .executeTakeFirst();
  if (!any) return undefined;
  // A job whose process died on its last attempt is not run again: it failed (and its
  // kind's onGiveUp settles what it left, `abandoned`).
  abandoned.push(
    ...(await app.db
      .updateTable('jobs')
      .set({
        status: 'failed',
        last_error: LEASE_EXPIRED,
        locked_by: null,
        updated_at: at,
      })
      .where('status', '=', 'running')
      .where('locked_until', '<', at)
      .whereRef('attempts', '>=', 'max_attempts')
      .where('name', 'in', kinds)
      .returning(['id', 'name', 'payload'])
      .execute()),
  );
  const postgres = app.config.database.dialect === 'postgres';
  let next = app.db
    .selectFrom('jobs')
    .select('id')
    .where(due(at))
    .where('name', 'in', kinds)
    .orderBy('run_at')
    .limit(1);
  if (postgres) next = next.forUpdate().skipLocked();
  return app.db
    .updateTable('jobs')
    .set({
      status: 'running',
      attempts: sql`attempts + 1`,
      locked_by: worker,
      locked_until: new Date(now.getTime() + app.config.jobLeaseMs).toISOString(),
      updated_at: at,
    })
    .where('id', '=', next)
    .returningAll()
    .executeTakeFirst();
}

/** Stores a job's outcome; answers whether the job has failed for good. */
async function finish(
  app: AppContext,
  job: JobRow,
  outcome: { result?: unknown; error?: Error; final?: boolean },
): Promise<boolean> {
  const now = app.clock.now();
  const base = { locked_by: null, locked_until: null, updated_at: now.toISOString() };
  let update: Partial<JobRow>;
  if (!outcome.error) {
    update = { ...base, status: 'done', result: JSON.stringify(outcome.result ?? null) };
  } else if (outcome.final || job.attempts >= job.max_attempts) {
    update = { ...base, status: 'failed', last_error: outcome.error.message };
  } else {
    // Exponential backoff: base, 2×base, 4×base, …
    const delay = app.config.jobRetryBaseMs * 2 ** (job.attempts - 1);
    update = {
      ...base,
      status: 'queued',
      last_error: outcome.error.message,
      run_at: new Date(now.getTime() + delay).toISOString(),
    };
  }
  // Only if this worker still holds the claim: a job that outlived its lease belongs to
  // whoever claimed it since.
  await app.db
    .updateTable('jobs')
    .set(update)
    .where('id', '=', job.id)
    .where('locked_by', '=', job.locked_by)
    .execute();
  return update.status === 'failed';
}

/**
 * Renews `job`'s lease every third of it until the returned function is called (which
 * waits for a renewal in flight). Only while this worker still holds the claim: a lease
 * that lapsed and was claimed by another worker is not taken back.
 */
function holdLease(app: AppContext, job: JobRow): () => Promise<void> {
  const lease = app.config.jobLeaseMs;
  let pending: Promise<void> | undefined;
  const renew = async () => {
    try {
      const { numUpdatedRows } = await app.db
        .updateTable('jobs')
        .set({ locked_until: new Date(app.clock.now().getTime() + lease).toISOString() })
        .where('id', '=', job.id)
        .where('locked_by', '=', job.locked_by)
        .executeTakeFirst();
      if (numUpdatedRows === 0n) {
        app.log?.warn({ job: job.id, name: job.name }, 'job lease lost to another worker');
      }
    } catch (e) {
      // The next renewal tries again; the lease only lapses if they all fail for a lease.
      app.log?.warn({ job: job.id, name: job.name, err: e }, 'job lease renewal failed');
    }
  };
  const stop = app.clock.every(Math.max(1, Math.floor(lease / 3)), () => {
    pending ??= renew().finally(() => {
      pending = undefined;
    });
    return pending;
  });
  return async () => {
    stop();
    await pending;
  };
}

export class JobRunner implements JobQueue {
  // Where the claim is held, for operators reading the jobs table (and the cluster tests).
  private readonly worker = `${newId('wrk')}@${hostname()}:${process.pid}`;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;
  private stopping: Promise<void> | undefined;
  /** Ends the renewals of the lease on the job in hand. */
  private lease: (() => Promise<void>) | undefined;

  private readonly handlers = new Map<string, JobDefinition<unknown>>();

  constructor(
    private readonly app: AppContext,
    // biome-ignore lint/suspicious/noExplicitAny: each definition pairs its own payload type
    definitions: readonly JobDefinition<any>[] = [],
  ) {
    this.register(definitions);
  }

  /** Adds the handlers this process runs (the server's: src/jobs/handlers.ts). */
  // biome-ignore lint/suspicious/noExplicitAny: as in the constructor
  register(definitions: readonly JobDefinition<any>[]): void {
    for (const d of definitions) this.handlers.set(d.kind.name, d as JobDefinition<unknown>);
  }

  /** Runs every job that is due now, one after another; answers how many ran. */
  drain(): Promise<number> {
    this.running ??= this.runDue().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async runDue(): Promise<number> {
    let ran = 0;
    for (;;) {
      if (this.stopped) return ran;
      const abandoned: Pick<JobRow, 'id' | 'name' | 'payload'>[] = [];
      const job = await claim(this.app, this.worker, [...this.handlers.keys()], abandoned);
      for (const gone of abandoned) await this.giveUp(gone, LEASE_EXPIRED);
      if (!job) return ran;
      ran++;
      const definition = this.handlers.get(job.name);
      try {
        if (!definition) throw new UnreadablePayload(`no handler for job ${job.name}`);
        const payload = decodePayload(definition.kind, job.payload);
        if (!payload.success) {
          throw new UnreadablePayload(`payload: ${payload.error.issues[0]?.message}`);
        }
        this.lease = holdLease(this.app, job);
        let result: unknown;
        try {
          result = await definition.handler(this.app, payload.data, job);
        } finally {
          await this.lease();
          this.lease = undefined;
        }
        await finish(this.app, job, { result });
      } catch (e) {
        this.app.log?.warn({ job: job.id, name: job.name, err: e }, 'job failed');
        const final = e instanceof UnreadablePayload;
        if (await finish(this.app, job, { error: e as Error, final })) {
          await this.giveUp(job, (e as Error).message);
        }
      }
    }
  }

  /** Runs the kind's onGiveUp for a job failed for good; its own failure is only logged. */
  private async giveUp(job: Pick<JobRow, 'id' | 'name' | 'payload'>, reason: string) {
    const definition = this.handlers.get(job.name);
    if (!definition?.onGiveUp) return;
    const payload = decodePayload(definition.kind, job.payload);
    if (!payload.success) return;
    try {
      await definition.onGiveUp(this.app, payload.data, reason);
    } catch (e) {
      this.app.log?.error({ job: job.id, name: job.name, err: e }, 'job give-up failed');
    }
  }

  /**
   * Polls for due jobs every JOB_POLL_MS until stopped. While the database fails, the
   * delay doubles with each failed poll, up to 30 s (or JOB_POLL_MS if longer), so an
   * outage costs a log line now and then, not a loop hammering the database.
   */
  start(): void {
    let failures = 0;
    const tick = () => {
      this.drain()
        .then(
          () => {
            failures = 0;
          },
          (e) => {
            failures++;
            this.app.log?.error({ err: e, failures }, 'job runner');
          },
        )
        .finally(() => {
          const poll = this.app.config.jobPollMs;
          const delay = Math.min(poll * 2 ** Math.min(failures, 20), Math.max(poll, 30_000));
          if (!this.stopped) this.timer = setTimeout(tick, delay);
        });
    };
    this.timer = setTimeout(tick, this.app.config.jobPollMs);
  }

  /**
   * Every later call answers the first's promise: the server's own close, and the
   * context's, then wait no longer than a shutdown's timeout did.
   */
  stop(opts: { timeoutMs?: number } = {}): Promise<void> {
    this.stopping ??= this.stopRunning(opts.timeoutMs);
    return this.stopping;
  }

  private async stopRunning(timeoutMs: number | undefined): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (!this.running) return;
    // A poll that fails while stopping (the database is down) was logged by its tick;
    // stopping goes on regardless.
    const settled = this.running.then(
      () => true,
      () => true,
    );
    if (timeoutMs === undefined) return void (await settled);
    if (await within(settled, timeoutMs)) return;
    await this.lease?.();
    // The handler is abandoned with the process: the job is queued again, due now, and the
    // attempt given back (it was cut short, not failed), so another process runs it at
    // once rather than when the lease would have lapsed. Handlers are safe to run again.
    const at = this.app.clock.now().toISOString();
    await this.app.db
      .updateTable('jobs')
      .set({
        status: 'queued',
        attempts: sql`attempts - 1`,
        run_at: at,
        locked_by: null,
        locked_until: null,
        updated_at: at,
      })
      .where('status', '=', 'running')
      .where('locked_by', '=', this.worker)
      .execute();
  }
}
