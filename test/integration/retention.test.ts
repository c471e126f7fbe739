import { afterAll, beforeAll, expect, it } from 'vitest';
import { pruneFinished } from '../../src/domain/retention.js';
import { startService, type TestService } from '../support/harness.js';
import { seedWorld, type World } from '../support/world.js';

/**
 * Tables that only grow are pruned: finished jobs past RETENTION_JOBS_DAYS, finished
 * webhook deliveries (with their attempts) past RETENTION_WEBHOOKS_DAYS; nothing
 * unfinished, whatever its age.
 */
let svc: TestService;
let w: World;
const DAY = 24 * 3600_000;

beforeAll(async () => {
  svc = await startService(
    { RETENTION_JOBS_DAYS: '7', RETENTION_WEBHOOKS_DAYS: '30' },
    {
      runJobs: false,
    },
  );
  w = await seedWorld(svc.app);
});
afterAll(() => svc.close());

const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();

async function job(id: string, status: 'queued' | 'running' | 'done' | 'failed', days: number) {
  await svc.app.db
    .insertInto('jobs')
    .values({
      id,
      name: 'billing.recalculate',
      payload: '{}',
      status,
      attempts: 1,
      max_attempts: 5,
      run_at: ago(days),
      locked_until: null,
      locked_by: null,
      last_error: null,
      result: null,
      created_at: ago(days),
      updated_at: ago(days),
    })
    .execute();
}

async function delivery(id: string, status: 'pending' | 'delivered' | 'failed', days: number) {
  await svc.app.db
    .insertInto('webhook_deliveries')
    .values({
      id,
      endpoint_id: endpointId,
      event_id: `evt_${id}`,
      event_type: 'story.created',
      payload: '{}',
      status,
      attempts: 1,
      last_status_code: 200,
      last_error: null,
      next_attempt_at: null,
      created_at: ago(days),
      delivered_at: status === 'delivered' ? ago(days) : null,
    })
    .execute();
  await svc.app.db
    .insertInto('webhook_attempts')
    .values({
      id: `retatt_${id}`,
      delivery_id: id,
      attempt: 1,
      at: ago(days),
      status_code: 200,
      error: null,
      duration_ms: 5,
    })
    .execute();
}

let endpointId = '';

it('prunes finished jobs and deliveries past their retention, and nothing else', async () => {
  endpointId = 'whe_retention';
  await svc.app.db
    .insertInto('webhook_endpoints')
    .values({
      id: endpointId,
      account_id: w.accounts.agency,
      url: 'https://hooks.example.com/x',
      event_types: '["story.created"]',
      secret: 'whsec_x',
      previous_secret: null,
      previous_secret_expires_at: null,
      created_at: ago(60),
      disabled_at: null,
    })
    .execute();
  await job('retjob_old_done', 'done', 8);
  await job('retjob_old_failed', 'failed', 8);
  await job('retjob_new_done', 'done', 6);
  await job('retjob_old_queued', 'queued', 40);
  await job('retjob_old_running', 'running', 40);
  await delivery('retdlv_old_delivered', 'delivered', 31);
  await delivery('retdlv_old_failed', 'failed', 31);
  await delivery('retdlv_new_delivered', 'delivered', 29);
  await delivery('retdlv_old_pending', 'pending', 45);
  // A story-from-URL request goes with its job, and only then.
  for (const id of ['retjob_old_done', 'retjob_new_done']) {
    await svc.app.db
      .insertInto('story_requests')
      .values({
        job_id: id,
        brand_id: 'brd_any',
        url: `https://news.example.org/${id}`,
        requested_by: 'operator',
        created_at: ago(8),
      })
      .execute();
  }

  expect(await pruneFinished(svc.app)).toEqual({ jobs: 2, deliveries: 2 });
  const jobs = await svc.app.db
    .selectFrom('jobs')
    .select('id')
    .where('id', 'like', 'retjob_%')
    .execute();
  expect(jobs.map((j) => j.id).sort()).toEqual([
    'retjob_new_done',
    'retjob_old_queued',
    'retjob_old_running',
  ]);
  const requests = await svc.app.db
    .selectFrom('story_requests')
    .select('job_id')
    .where('job_id', 'like', 'retjob_%')
    .execute();
  expect(requests).toEqual([{ job_id: 'retjob_new_done' }]);
  const deliveries = await svc.app.db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('endpoint_id', '=', endpointId)
    .execute();
  expect(deliveries.map((d) => d.id).sort()).toEqual([
    'retdlv_new_delivered',
    'retdlv_old_pending',
  ]);
  const attempts = await svc.app.db
    .selectFrom('webhook_attempts')
    .select('delivery_id')
    .where('delivery_id', 'like', 'retdlv_%')
    .execute();
  expect(attempts.map((a) => a.delivery_id).sort()).toEqual([
    'retdlv_new_delivered',
    'retdlv_old_pending',
  ]);
  // Again: nothing left to prune.
  expect(await pruneFinished(svc.app)).toEqual({ jobs: 0, deliveries: 0 });
});
