import { CompiledQuery, PostgresAdapter, sql } from 'kysely';
import type { Db } from './database.js';
import { hotQueries } from './prepared.js';

export interface QueryPlan {
  label: string;
  /** The plan as the database prints it, one line per step. */
  plan: string[];
  /** The steps that read a whole table or index: none may, or the query slows as data grows. */
  fullScans: string[];
}

/**
 * The plan of every hot query (the prepared ones: prepared.ts) with the values of a real
 * call on the story `eventUri` (its brand, its account and a key of it), on `db`'s
 * dialect. The modules that declare them must be loaded (the server's modules do). On
 * PostgreSQL, sequential scans are discouraged for the check (the planner prefers them
 * on small tables), so a plan that still scans a table has no index it could use; on
 * SQLite, any SCAN step is a full read (a keyed read is a SEARCH).
 */
export async function hotQueryPlans(db: Db, eventUri: string): Promise<QueryPlan[]> {
  const params = await paramsOf(db, eventUri);
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const plans: QueryPlan[] = [];
  for (const query of hotQueries) {
    const { sql: text, values } = query.compile(db, params);
    const plan = postgres
      ? await postgresPlan(db, text, values)
      : await sqlitePlan(db, text, values);
    const fullScans = plan.filter((line) =>
      postgres ? /\bSeq Scan on\b/.test(line) : /^\s*SCAN\b/.test(line),
    );
    plans.push({ label: query.label, plan, fullScans });
  }
  return plans;
}

/** Every parameter a hot query takes, as a call on this story would give it. */
async function paramsOf(db: Db, eventUri: string): Promise<Record<string, unknown>> {
  const story = await db
    .selectFrom('stories as s')
    .innerJoin('brands as b', 'b.id', 's.brand_id')
    .innerJoin('advisories as a', (j) =>
      j.onRef('a.story_id', '=', 's.id').on('a.kind', '=', sql.lit('live')),
    )
    .leftJoin('api_keys as k', 'k.account_id', 'b.account_id')
    .select(['s.id', 's.detected_at', 's.brand_id', 'b.host', 'b.account_id'])
    .select(['a.id as advisory', 'k.lookup'])
    .where('s.event_uri', '=', eventUri)
    .limit(1)
    .executeTakeFirstOrThrow();
  return {
    lookup: story.lookup ?? 'none',
    host: story.host,
    account: story.account_id,
    brandId: story.brand_id,
    take: 21,
    before: story.detected_at,
    beforeId: story.id,
    eventUri,
    storyId: story.id,
    advisoryId: story.advisory,
  };
}

async function postgresPlan(db: Db, text: string, values: unknown[]): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain ${text}`, values),
    );
    return rows.map((r) => r['QUERY PLAN']);
  });
}

async function sqlitePlan(db: Db, text: string, values: unknown[]): Promise<string[]> {
  const { rows } = await db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(`explain query plan ${text}`, values),
  );
  return rows.map((r) => r.detail);
}
