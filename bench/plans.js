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
  // ANALYZE reads every table: at a million stories PostgreSQL takes longer than the
  // service's statement_timeout (5 s by default, for requests), which would cancel it.
  const app = await createContext(
    loadConfig({
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      DATABASE_STATEMENT_TIMEOUT_MS: String(10 * 60_000),
    }),
  );
  try {
    await sql`analyze`.execute(app.db);
    // The last brand's newest unlocked story.
    const story = await app.db
      .selectFrom('stories as s')
      .innerJoin('brands as b', 'b.id', 's.brand_id')
      .select('s.event_uri')
      .where('s.unlocked_at', 'is not', null)
      .orderBy('b.host', 'desc')
      .orderBy('s.detected_at', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    return await hotQueryPlans(app.db, story.event_uri);
  } finally {
    await app.close();
  }
}
