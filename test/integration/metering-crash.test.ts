import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type AppContext, createContext } from '../../src/context.js';
import { subscribe } from '../../src/domain/billing-admin.js';
import { brsServe } from '../support/cli.js';
import { migratedDatabase } from '../support/databases.js';
import { type StripeDouble, startStripeDouble } from '../support/stripe-double.js';
import { seedWorld, type World } from '../support/world.js';

/**
 * The metering call runs outside the unlock's transaction (metering.ts). A server killed
 * (SIGKILL) while Stripe holds its metering call leaves a reservation; the restarted
 * service settles it with the same idempotency key: one unit counted at Stripe, one
 * ledger row, the advisory unlocked.
 */
let db: { url: string; drop: () => Promise<void> };
let stripe: StripeDouble;
let app: AppContext;
let w: World;
let env: Record<string, string>;

beforeAll(async () => {
  db = await migratedDatabase();
  stripe = await startStripeDouble();
  env = {
    DATABASE_URL: db.url,
    BILLING: 'stripe',
    STRIPE_SECRET_KEY: 'sk_test_double',
    STRIPE_WEBHOOK_SECRET: 'whsec_test_double',
    STRIPE_API_URL: stripe.url,
    METER_LEASE_MS: '400',
    JOB_POLL_MS: '100',
  };
  app = await createContext(loadConfig(env));
  w = await seedWorld(app);
  await subscribe(app, w.accounts.agency, 'test', 'cus_test_agency');
});
afterAll(async () => {
  await app.close();
  await stripe.close();
  await db.drop();
});

const unlock = (url: string, event_uri: string) =>
  fetch(`${url}/v1/advisory`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': w.keys.owner },
    body: JSON.stringify({ brand: 'northwind.example', event_uri }),
  });

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('a server killed during the metering call: after a restart the unit is counted once and the advisory unlocked', async () => {
  // Everything this process writes is written before a server runs: two processes
  // writing one SQLite file would only wait on each other.
  const event = await w.story('northwind.example', 7);
  const first = await brsServe(env);
  // This month's included unit goes first, so the next unlock is metered.
  expect((await unlock(first.url, w.stories.northwind)).status).toBe(200);
  const story = await app.db
    .selectFrom('stories')
    .select('id')
    .where('event_uri', '=', event)
    .executeTakeFirstOrThrow();
  const identifier = `unlock_${story.id}`;

  stripe.holdMeter = true;
  unlock(first.url, event).catch(() => {});
  await until('the metering call', async () =>
    stripe.meterEvents.some((m) => m.identifier === identifier) ? true : undefined,
  );
  first.child.kill('SIGKILL');
  await new Promise((r) => first.child.once('exit', r));
  stripe.holdMeter = false;

  // Stripe counted the unit; the service had committed only its reservation.
  const reserved = await app.db
    .selectFrom('metering_reservations')
    .select(['id', 'status'])
    .where('story_id', '=', story.id)
    .execute();
  expect(reserved).toEqual([{ id: identifier, status: 'reserved' }]);
  const ledger = () =>
    app.db
      .selectFrom('billing_ledger')
      .select(['kind', 'external_id'])
      .where('story_id', '=', story.id)
      .execute();
  expect(await ledger()).toEqual([]);

  // The restarted service's settle job meters again with the same key and commits.
  const second = await brsServe(env);
  try {
    await until('the settled reservation', async () => {
      const r = await app.db
        .selectFrom('metering_reservations')
        .select('status')
        .where('id', '=', identifier)
        .executeTakeFirstOrThrow();
      return r.status === 'committed' ? true : undefined;
    });
    expect(await ledger()).toEqual([{ kind: 'metered', external_id: identifier }]);
    expect(stripe.meterEvents.filter((m) => m.identifier === identifier)).toHaveLength(1);
    expect(
      stripe.meterRequests.filter((m) => m.identifier === identifier).length,
    ).toBeGreaterThanOrEqual(2);
    const again = await unlock(second.url, event);
    expect(await again.json()).toMatchObject({ ok: true, billed_eur: 0 });
    const charged = await app.db
      .selectFrom('audit_log')
      .select('action')
      .where('story_id', '=', story.id)
      .where('action', '=', 'billing.charged')
      .execute();
    expect(charged).toHaveLength(1);
  } finally {
    await second.stop();
  }
}, 60_000);
