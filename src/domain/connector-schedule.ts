import { sql } from 'kysely';
import { baseOf, isPolled, type PolledId } from '../connectors/connector.js';
import { CONNECTORS } from '../connectors/index.js';
import type { AppContext } from '../context.js';
import { decode } from '../db/json-columns.js';
import { CONNECTOR_POLL } from '../jobs/kinds.js';
import { announceSpikes } from './mention-spikes.js';
import { claimPoll } from './polls.js';

/**
 * When each brand's connectors are polled (docs/sources.md, "Polling", "Rate limits"):
 * claimed by moving the row's next poll forward in the transaction that enqueues the
 * `connector.poll` job (connectors.ts), so one process asks whatever number run. Each
 * connector's requests are paced across all processes: one process a minute takes the
 * connector's window (a compare-and-set on `connector_backoff`) and claims the rows due
 * before it ends, each at its due time, within the connector's rate; a 429's Retry-After
 * holds the connector.
 */

/** A connector's window: the requests claimed at once are spread over it. */
const WINDOW_MS = 60_000;
/**
 * A window ends this much early, so that the process that took it, ticking once a minute,
 * finds it open at its next tick (its clock read a little later than the last tick's, a
 * minute on): without it a lone process would claim every other minute.
 */
const WINDOW_SLACK_MS = 2_000;
/** Why a connector is held: the minute's window (else its service's 429). */
export const WINDOW = 'window';

/**
 * Brands added by any path (an agency's client onboarding, an older release) that lack a
 * configured connector get it, in one statement per connector; the scheduler runs this
 * at start and every ten minutes.
 */
export async function seedMissing(app: AppContext): Promise<void> {
  const at = app.clock.now().toISOString();
  for (const connector of app.config.connectors) {
    await app.db
      .insertInto('brand_connectors')
      .columns(['id', 'brand_id', 'connector', 'next_poll_at', 'created_at'])
      .expression((eb) =>
        eb
          .selectFrom('brands as b')
          .select([
            sql<string>`b.id || ${`.${connector}`}`.as('id'),
            'b.id as brand_id',
            sql<string>`cast(${connector} as text)`.as('connector'),
            sql<string>`cast(${at} as text)`.as('next_poll_at'),
            sql<string>`cast(${at} as text)`.as('created_at'),
          ])
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('brand_connectors as c')
                  .select('c.id')
                  .whereRef('c.brand_id', '=', 'b.id')
                  .where('c.connector', '=', connector),
              ),
            ),
          ),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

/**
 * A connector's pace: how many polls one window claims, and how long the window is. Its
 * rate in CONNECTOR_RATES, else its service's limit within CONNECTOR_REQUESTS_PER_MINUTE:
 * a minute's worth a minute, or, for a quota below one a minute (YouTube's searches), one
 * poll in a longer window.
 */
function paceOf(app: AppContext, connector: PolledId): { polls: number; windowMs: number } {
  const rate =
    app.config.connectorRates[connector] ??
    Math.min(app.config.connectorRequestsPerMinute, CONNECTORS[connector].perMinute);
  return rate >= 1
    ? { polls: Math.floor(rate), windowMs: WINDOW_MS }
    : { polls: 1, windowMs: Math.ceil(WINDOW_MS / rate) };
}

/** How many requests a row's poll makes: one per target, or per configured instance. */
function requestsOf(app: AppContext, connector: PolledId, targets: string | null): number {
  const asks = CONNECTORS[connector].request({
    base: baseOf(app.config, connector),
    query: { names: ['x'], exclude: [] },
    cursor: null,
    now: new Date(0),
    targets: targets ? decode('brand_connectors.targets', targets) : [],
    key: '',
  });
  return Math.max(1, asks.length);
}

/**
 * Takes the connector's window for this process: true when no process holds it (its last
 * window ended, and no 429 asks to wait). One process a window wins, however many run.
 */
async function takeWindow(
  app: AppContext,
  connector: PolledId,
  at: string,
  windowMs: number,
): Promise<boolean> {
  const until = new Date(Date.parse(at) + windowMs - WINDOW_SLACK_MS).toISOString();
  await app.db
    .insertInto('connector_backoff')
    .values({ connector, until: at, reason: WINDOW })
    .onConflict((oc) => oc.doNothing())
    .execute();
  const taken = await app.db
    .updateTable('connector_backoff')
    .set({ until, reason: WINDOW })
    .where('connector', '=', connector)
    .where('until', '<=', at)
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}

/**
 * Enqueues the polls due within the connector's window (the next minute), each at its due
 * time and within the connector's rate; answers how many this process claimed.
 */
export async function scheduleDueConnectors(app: AppContext): Promise<number> {
  const now = app.clock.now();
  const at = now.toISOString();
  let claimed = 0;
  for (const connector of app.config.connectors.filter(isPolled)) {
    const { polls, windowMs } = paceOf(app, connector);
    if (!(await takeWindow(app, connector, at, windowMs))) continue;
    // The rows due before the window ends, each polled at its time.
    const horizon = new Date(now.getTime() + windowMs).toISOString();
    const due = await app.db
      .selectFrom('brand_connectors as c')
      // A row whose brand is gone (deleted mid-seed) is never claimed.
      .innerJoin('brands as b', 'b.id', 'c.brand_id')
      .select(['c.id', 'c.next_poll_at', 'c.targets'])
      .where('c.connector', '=', connector)
      .where('c.enabled', '=', 1)
      .where((eb) => eb.or([eb('c.next_poll_at', 'is', null), eb('c.next_poll_at', '<=', horizon)]))
      // A connector that reads named things waits, idle, until the team names some.
      .$if(CONNECTORS[connector].targets !== undefined, (q) => q.where('c.targets', 'is not', null))
      .orderBy('c.next_poll_at')
      .limit(polls)
      .execute();
    // Each at its due time (those overdue now), never two closer than the service's rate
    // allows: a steady pace for the service, and no burst for the job queue. Its next poll
    // is an interval after this one runs.
    // The rate counts requests: a poll of three apps' reviews is three.
    const spacing = windowMs / polls;
    let budget = polls;
    let last = Number.NEGATIVE_INFINITY;
    for (const row of due) {
      const requests = requestsOf(app, connector, row.targets);
      if (requests > budget) break;
      const dueAt = row.next_poll_at ? Date.parse(row.next_poll_at) : now.getTime();
      const runMs = Math.max(now.getTime(), dueAt, last);
      const runAt = new Date(runMs).toISOString();
      const next = new Date(runMs + app.config.connectorPollMs).toISOString();
      const job = { kind: CONNECTOR_POLL, payload: { source: row.id }, now: at, runAt };
      if (await claimPoll(app, 'brand_connectors', row, next, job)) {
        last = runMs + spacing * requests;
        budget -= requests;
        claimed++;
      }
    }
  }
  return claimed;
}

/**
 * Seeds missing rows, schedules due connectors and tells of mention spikes
 * (mention-spikes.ts) now, then every minute (or CONNECTOR_POLL_MS, if shorter); seeds
 * again every ten runs.
 */
export function startConnectorScheduler(app: AppContext): () => void {
  if (app.config.connectors.length === 0) return () => {};
  let runs = 0;
  const run = async () => {
    if (runs++ % 10 === 0) await seedMissing(app);
    await scheduleDueConnectors(app);
    await announceSpikes(app);
  };
  const tick = () => {
    run().catch((err) => app.log?.warn({ err }, 'connector scheduling failed'));
  };
  tick();
  const timer = setInterval(tick, Math.min(60_000, app.config.connectorPollMs));
  timer.unref();
  return () => clearInterval(timer);
}
