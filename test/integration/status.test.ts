import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { migrator } from '../../src/db/database.js';
import { createAccount } from '../../src/domain/accounts.js';
import { EMAIL_SEND } from '../../src/jobs/kinds.js';
import { enqueue } from '../../src/jobs/queue.js';
import { brs } from '../support/cli.js';
import { migratedDatabase } from '../support/databases.js';

/** `brs status`: what an operator watches, read from the database every instance shares. */
let env: Record<string, string>;
let drop: () => Promise<void>;

beforeAll(async () => {
  const db = await migratedDatabase();
  env = { DATABASE_URL: db.url };
  drop = db.drop;
});
afterAll(() => drop?.());

it('counts the job backlog and how late it runs, failures of the last day, and the schema', async () => {
  const app = await createContext(loadConfig({ ...env, LOG_LEVEL: 'fatal' }));
  const now = Date.now();
  const iso = (ms: number) => new Date(now + ms).toISOString();
  try {
    // Two due (the oldest 2 minutes late), one not due yet, one failed an hour ago and
    // one failed two days ago.
    await enqueue(app.db, EMAIL_SEND, { email: 'a' }, { now: iso(-120_000) });
    await enqueue(app.db, EMAIL_SEND, { email: 'b' }, { now: iso(-5_000) });
    await enqueue(app.db, EMAIL_SEND, { email: 'c' }, { now: iso(0), runAt: iso(3_600_000) });
    for (const [email, ago] of [
      ['d', 3_600_000],
      ['e', 2 * 86_400_000],
    ] as const) {
      const id = await enqueue(app.db, EMAIL_SEND, { email }, { now: iso(-ago) });
      await app.db
        .updateTable('jobs')
        .set({ status: 'failed', updated_at: iso(-ago) })
        .where('id', '=', id)
        .execute();
    }
    // Webhooks: one delivery waiting for a retry; two given up, both made four days ago,
    // one of them given up an hour ago (counted) and one three days ago (not).
    const account = await createAccount(app, 'Hooks', 'agency');
    await app.db
      .insertInto('webhook_endpoints')
      .values({
        id: 'whe_status',
        account_id: account,
        url: 'https://hooks.example.com/',
        event_types: '["*"]',
        secret: 'whsec_x',
        previous_secret: null,
        previous_secret_expires_at: null,
        created_at: iso(-5 * 86_400_000),
        disabled_at: null,
      })
      .execute();
    for (const [id, status, lastAttemptAgo] of [
      ['dlv_waiting', 'pending', 60_000],
      ['dlv_given_up_now', 'failed', 3_600_000],
      ['dlv_given_up_before', 'failed', 3 * 86_400_000],
    ] as const) {
      await app.db
        .insertInto('webhook_deliveries')
        .values({
          id,
          endpoint_id: 'whe_status',
          event_id: `msg_${id}`,
          event_type: 'story.created',
          payload: '{}',
          status,
          attempts: 1,
          last_status_code: 500,
          last_error: 'HTTP 500',
          next_attempt_at: null,
          created_at: iso(-4 * 86_400_000),
          delivered_at: null,
        })
        .execute();
      await app.db
        .insertInto('webhook_attempts')
        .values({
          id: `wha_${id}`,
          delivery_id: id,
          attempt: 1,
          at: iso(-lastAttemptAgo),
          status_code: 500,
          error: null,
          duration_ms: 5,
        })
        .execute();
    }
    const migrations = (await migrator(app.db).getMigrations()).length;

    const { code, out } = await brs(env, 'status');
    expect(code).toBe(0);
    expect(out).toEqual({
      jobs: {
        due: 2,
        oldest_due_seconds: expect.any(Number),
        running: 0,
        failed_last_day: 1,
      },
      webhooks: { pending: 1, failed_last_day: 1 },
      schema: { migrations, pending: 0 },
      connectors: { failing: 0, first: [] },
      // Bluesky is not among this service's connectors.
      bluesky: null,
    });
    expect(out.jobs.oldest_due_seconds).toBeGreaterThanOrEqual(120);
    expect(out.jobs.oldest_due_seconds).toBeLessThan(180);
  } finally {
    await app.close();
  }
});
