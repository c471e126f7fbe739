/**
 * The query plans of the hot queries (src/db/query-plans.ts) on a seeded benchmark
 * database, after ANALYZE, with values of a real story: at scale too, each must read
 * through an index.
 */
import { sql } from 'kysely';
import { loadConfig } from '../dist/config.js';
import { createContext } from '../dist/context.js';
import { hotQueryPlans } from '../dist/db/query-plans.js';
// The modules that declare the hot queries, all loaded by the server's.
import '../dist/http/server.js';

export async function checkPlans(databaseUrl) {
  const app = await createContext(loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }));
  try {
    await sql`analyze`.execute(app.db);
    // The last brand's newest unlocked story, and a key of its account.
    const story = await app.db
      .selectFrom('stories as s')
      .innerJoin('brands as b', 'b.id', 's.brand_id')
      .innerJoin('advisories as a', (j) =>
        j.onRef('a.story_id', '=', 's.id').on('a.kind', '=', 'live'),
      )
      .select([
        's.id',
        's.event_uri',
        's.detected_at',
        's.brand_id',
        'b.host',
        'b.account_id',
        'a.id as advisory',
      ])
      .where('s.unlocked_at', 'is not', null)
      .orderBy('b.host', 'desc')
      .orderBy('s.detected_at', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    const key = await app.db
      .selectFrom('api_keys')
      .select('lookup')
      .where('account_id', '=', story.account_id)
      .limit(1)
      .executeTakeFirst();
    return await hotQueryPlans(app.db, {
      lookup: key?.lookup ?? 'none',
      host: story.host,
      account: story.account_id,
      brandId: story.brand_id,
      take: 21,
      before: story.detected_at,
      beforeId: story.id,
      eventUri: story.event_uri,
      storyId: story.id,
      advisoryId: story.advisory,
    });
  } finally {
    await app.close();
  }
}
