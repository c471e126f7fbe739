import type { AppContext } from '../context.js';
import { migrator } from '../db/database.js';
import { blueskyHealth } from './bluesky-stream.js';
import { failingConnectors } from './connector-settings.js';

/**
 * What an operator watches across every instance at once (docs/deployment.md, "What to
 * watch"), read from the shared database: the job backlog and how late it runs, jobs
 * failed and webhook deliveries given up in the last day, deliveries waiting for a
 * retry, the schema version, and the brands' connectors failing for an hour or more.
 */
export async function serviceStatus(app: AppContext) {
  const now = app.clock.now();
  const at = now.toISOString();
  const dayAgo = new Date(now.getTime() - 86_400_000).toISOString();
  const count = (n: { n: number | string | bigint } | undefined) => Number(n?.n ?? 0);
  const [due, running, failed, waiting, givenUp, migrations] = await Promise.all([
    app.db
      .selectFrom('jobs')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('run_at').as('oldest')])
      .where('status', '=', 'queued')
      .where('run_at', '<=', at)
      .executeTakeFirst(),
    app.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'running')
      .executeTakeFirst(),
    app.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'failed')
      .where('updated_at', '>=', dayAgo)
      .executeTakeFirst(),
    app.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'pending')
      .executeTakeFirst(),
    // Given up in the last day: the last attempt was then (a delivery is given up three
    // days after it was made, so its own date says nothing).
    app.db
      .selectFrom('webhook_deliveries as d')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('d.status', '=', 'failed')
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('webhook_attempts as t')
            .select('t.id')
            .whereRef('t.delivery_id', '=', 'd.id')
            .where('t.at', '>=', dayAgo),
        ),
      )
      .executeTakeFirst(),
    migrator(app.db).getMigrations(),
  ]);
  const failing = await failingConnectors(app);
  const bluesky = await blueskyHealth(app);
  const oldest = due?.oldest ? String(due.oldest) : null;
  return {
    jobs: {
      due: count(due),
      // How late the longest-waiting due job is: grows when instances cannot keep up.
      oldest_due_seconds: oldest
        ? Math.max(0, Math.round((now.getTime() - Date.parse(oldest)) / 1000))
        : 0,
      running: count(running),
      failed_last_day: count(failed),
    },
    webhooks: { pending: count(waiting), failed_last_day: count(givenUp) },
    // Connectors that have failed for an hour or more (docs/sources.md).
    connectors: { failing: failing.count, first: failing.first },
    // Bluesky's stream, when configured: who reads it and whether it is failing.
    bluesky,
    schema: {
      migrations: migrations.filter((m) => m.executedAt).length,
      pending: migrations.filter((m) => !m.executedAt).length,
    },
  };
}
