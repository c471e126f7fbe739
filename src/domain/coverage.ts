import type { Insertable } from 'kysely';
import type { Db } from '../db/database.js';
import type { DB, Severity } from '../db/schema.js';

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
  sentiment: number | null;
}

/** Publishers are anyone's text: a long one is counted under its first 200 characters. */
const PUBLISHER_CHARS = 200;

/**
 * The rows a mention adds to: its day under its severity, its publisher and each topic.
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
    ...[...new Set(m.topics)].map((t) => ({ ...base, facet: 'topic' as const, value: t })),
  ];
  return rows.sort((a, b) => `${a.facet}\0${a.value}`.localeCompare(`${b.facet}\0${b.value}`));
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
