// A job worker process for test/integration/job-queue.test.ts, built from dist/ as the
// service runs: a JobRunner polling the database named by DATABASE_URL, with one handler,
// `test.effect`, whose effect is a line in the file QUEUE_WORKER_LOG. The handler writes
// "start <job>" as it begins, waits EFFECT_DELAY_MS, then writes "effect <job>", so a
// process killed in between leaves a start without its effect.
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { loadConfig } from '../../dist/config.js';
import { createContext } from '../../dist/context.js';
import { defineJob, JobRunner } from '../../dist/jobs/queue.js';

const log = process.env.QUEUE_WORKER_LOG;
if (!log) throw new Error('QUEUE_WORKER_LOG is required');
const delay = Number(process.env.EFFECT_DELAY_MS ?? 1500);

const app = await createContext(loadConfig(process.env));
const runner = new JobRunner(app, [
  defineJob({ name: 'test.effect', payload: z.any() }, async (_app, _payload, job) => {
    appendFileSync(log, `start ${job.id}\n`);
    await sleep(delay);
    appendFileSync(log, `effect ${job.id}\n`);
    return { pid: process.pid };
  }),
]);
runner.start();

process.once('SIGTERM', async () => {
  await runner.stop();
  await app.close();
  process.exit(0);
});
