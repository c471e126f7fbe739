import { afterAll, beforeAll, expect, it } from 'vitest';
import { sqliteHandle } from '../../src/db/database.js';
import { hotQueries, prepared } from '../../src/db/prepared.js';
import { hotQueryPlans } from '../../src/db/query-plans.js';
import { startService, type TestService } from '../support/harness.js';
import { seedWorld, type World } from '../support/world.js';

/**
 * Every statement on the path of every call (the prepared queries: key lookup, brand
 * resolution, the story list's pages, the story and its plan and sources) reads through an
 * index, so its cost does not grow with the data (docs/benchmarks.md, "At scale").
 */
let svc: TestService;
let w: World;

beforeAll(async () => {
  svc = await startService({}, { runJobs: false });
  w = await seedWorld(svc.app);
});
afterAll(() => svc?.close());

it('runs every hot query on an index', async () => {
  const plans = await hotQueryPlans(svc.app.db, w.stories.northwind);
  expect(plans.map((p) => p.label).sort()).toEqual([
    'api key by lookup, with the brand the request names',
    'brand by host, with the account’s delegation',
    'phases of an advisory',
    'sources of a story',
    'story list, first page',
    'story list, page after a cursor',
    'story with its live advisory',
  ]);
  for (const p of plans) expect(p.fullScans, `${p.label}:\n${p.plan.join('\n')}`).toEqual([]);
  // The page after a cursor is a range on both columns, so a cursor among stories of the
  // same instant reads no row twice.
  const cursorPlan = plans.find((p) => p.label === 'story list, page after a cursor')!.plan;
  expect(cursorPlan.join('\n')).toMatch(
    /\(detected_at,id\)<\(\?,\?\)|ROW\(detected_at, id\) < ROW\(/,
  );

  // The check sees a query with no index to use (registered for this check only).
  prepared<{ eventUri: string }, { id: string }>('an unindexed read', (db, p) =>
    db.selectFrom('articles').select('id').where('text', '=', p('eventUri')),
  );
  try {
    const [unindexed] = (await hotQueryPlans(svc.app.db, w.stories.northwind)).filter(
      (p) => p.label === 'an unindexed read',
    );
    expect(unindexed!.fullScans).toHaveLength(1);
  } finally {
    hotQueries.pop();
  }
});

/**
 * On SQLite a bare `?` makes every run prepare the statement again (parse and plan: most
 * of its time). Each parameter is written `+?` instead (prepared.ts); on PostgreSQL the
 * statements are named and planned once per connection, and left as written.
 */
it('gives SQLite no bare parameter in a hot query', async () => {
  const params = {
    lookup: 'abcdefghijkm',
    host: 'northwind.example',
    account: 'acc_x',
    brandId: 'brd_x',
    eventUri: w.stories.northwind,
    storyId: 'sto_x',
    advisoryId: 'adv_x',
    take: 21,
    before: '2026-01-01T00:00:00.000Z',
    beforeId: 'sto_y',
  };
  const onSqlite = sqliteHandle(svc.app.db) !== undefined;
  for (const q of hotQueries) {
    const { sql, values } = q.compile(svc.app.db, params);
    const plus = sql.match(/\+(\?|\$\d+)/g) ?? [];
    const bare = sql.match(/(?<!\+)(\?|\$\d+)/g) ?? [];
    expect(values.length, q.label).toBeGreaterThan(0);
    expect(onSqlite ? bare : plus, `${q.label}: ${sql}`).toEqual([]);
    expect((onSqlite ? plus : bare).length, `${q.label}: ${sql}`).toBe(values.length);
  }
});
