import { type Insertable, sql } from 'kysely';
import type { AppContext } from '../context.js';
import { type Db, onPostgres, withTransaction } from '../db/database.js';
import type { DB, Severity } from '../db/schema.js';
import { readSetting, storeSettingOnce } from '../db/settings.js';

type CoverageRow = Insertable<DB['coverage_days']>;

/** One mention (an article stored for a story) as the overview counts it. */
export interface Mention {
  brandId: string;
  /** When it was detected (ISO); counted on its UTC day. */
  at: string;
  /** The story's severity and topics once the article is scored in. */
  severity: Severity;
  topics: readonly string[];
  publisher: string;
  /** Where it came from: news, social, forum, review, … (counted from issue 43's release on). */
  type: string;
  sentiment: number | null;
}

/** Publishers are anyone's text: a long one is counted under its first 200 characters. */
const PUBLISHER_CHARS = 200;

/**
 * The rows a mention adds to: its day under its severity, its publisher, its source type
 * and each topic.
 * Ordered by key, so two transactions counting on the same rows lock them in one order.
 */
export function coverageRows(m: Mention): CoverageRow[] {
  const day = m.at.slice(0, 10);
  const base = {
    brand_id: m.brandId,
    day,
    mentions: 1,
    sentiment_sum: m.sentiment ?? 0,
    sentiment_n: m.sentiment === null ? 0 : 1,
  };
  const rows: CoverageRow[] = [
    { ...base, facet: 'severity', value: m.severity },
    { ...base, facet: 'publisher', value: m.publisher.slice(0, PUBLISHER_CHARS) },
    { ...base, facet: 'type', value: m.type },
    ...[...new Set(m.topics)].map((t) => ({ ...base, facet: 'topic' as const, value: t })),
  ];
  // Plain code-unit order, the same in every process whatever its locale.
  const key = (r: CoverageRow) => `${r.facet}\0${r.value}`;
  return rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** Adds rows to the counts, in the caller's transaction (the one storing the article). */
export async function addCoverage(db: Db, rows: readonly CoverageRow[]): Promise<void> {
  for (const row of rows) {
    await db
      .insertInto('coverage_days')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['brand_id', 'facet', 'day', 'value']).doUpdateSet((eb) => ({
          mentions: eb('coverage_days.mentions', '+', eb.ref('excluded.mentions')),
          sentiment_sum: eb('coverage_days.sentiment_sum', '+', eb.ref('excluded.sentiment_sum')),
          sentiment_n: eb('coverage_days.sentiment_n', '+', eb.ref('excluded.sentiment_n')),
        })),
      )
      .execute();
  }
}

/** Rows of many mentions summed by key: what a bulk loader inserts at once. */
export function sumCoverage(rows: Iterable<CoverageRow>): CoverageRow[] {
  const byKey = new Map<string, CoverageRow>();
  for (const r of rows) {
    const key = `${r.brand_id}\0${r.facet}\0${r.day}\0${r.value}`;
    const had = byKey.get(key);
    if (!had) byKey.set(key, { ...r });
    else {
      had.mentions = Number(had.mentions) + Number(r.mentions);
      had.sentiment_sum = Number(had.sentiment_sum) + Number(r.sentiment_sum);
      had.sentiment_n = Number(had.sentiment_n) + Number(r.sentiment_n);
    }
  }
  return [...byKey.values()];
}

const BACKFILLED = 'coverage_backfilled';

/**
 * The `coverage.backfill` job (queued by migration 0019): counts the articles stored
 * before `before`, the first under its story's detection day and the others under the day
 * they joined, added to what the new release counted since. One statement and the mark
 * that it ran, in one transaction: a rerun finds the mark and adds nothing.
 */
export async function backfillCoverageJob(app: AppContext, payload: { before: string }) {
  return withTransaction(app.db, async (trx) => {
    if (await readSetting(trx, BACKFILLED)) return { skipped: true };
    const facts = sql`select s.brand_id,
      substr(case when a.source_key = 's1' then s.detected_at else a.created_at end, 1, 10) as day,
      s.severity, s.topics, substr(a.publisher, 1, 200) as publisher, a.sentiment
      from articles a join stories s on s.id = a.story_id where a.created_at < ${payload.before}`;
    const topics = onPostgres(trx)
      ? sql`select f.brand_id, 'topic' as facet, f.day, t.value, f.sentiment from (${facts}) f, jsonb_array_elements_text(f.topics::jsonb) as t(value)`
      : sql`select f.brand_id, 'topic' as facet, f.day, t.value, f.sentiment from (${facts}) f, json_each(f.topics) as t`;
    await sql`insert into coverage_days (brand_id, facet, day, value, mentions, sentiment_sum, sentiment_n)
select brand_id, facet, day, value, count(*), coalesce(sum(sentiment), 0), count(sentiment) from (
  select brand_id, 'severity' as facet, day, severity as value, sentiment from (${facts}) f
  union all select brand_id, 'publisher', day, publisher, sentiment from (${facts}) f
  union all ${topics}
) x where true group by brand_id, facet, day, value
on conflict (brand_id, facet, day, value) do update set
  mentions = coverage_days.mentions + excluded.mentions,
  sentiment_sum = coverage_days.sentiment_sum + excluded.sentiment_sum,
  sentiment_n = coverage_days.sentiment_n + excluded.sentiment_n`.execute(trx);
    await storeSettingOnce(trx, BACKFILLED, payload.before);
    return { counted: true };
  });
}
