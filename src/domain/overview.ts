import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { Severity, StoryStatus } from '../db/schema.js';
import { SEVERITIES } from '../pipeline/taxonomy.js';
import { nextDate } from './local-time.js';

/**
 * What the overview shows, read from the counts kept as stories change (coverage_days,
 * story_status_counts; migration 0019) and from index ranges: nothing here reads every
 * story, so the page costs the same at 100 stories and at 100,000 (npm run bench).
 */

export interface DayVolume {
  day: string;
  bySeverity: Record<Severity, number>;
  /** Mean sentiment of the day's scored mentions, or null when none was scored. */
  sentiment: number | null;
}

/** The UTC days from `first` to `last`, both included. */
export function daysBetween(first: string, last: string): string[] {
  const days: string[] = [];
  for (let day = first; day <= last; day = nextDate(day)) days.push(day);
  return days;
}

/** Mentions per day by severity, and the day's mean sentiment, every day of the range. */
export async function volumeByDay(db: Db, brandIds: string[], first: string, last: string) {
  const rows =
    brandIds.length === 0
      ? []
      : await db
          .selectFrom('coverage_days')
          .select((eb) => [
            'day',
            'value',
            eb.fn.sum<number>('mentions').as('mentions'),
            eb.fn.sum<number>('sentiment_sum').as('sentiment_sum'),
            eb.fn.sum<number>('sentiment_n').as('sentiment_n'),
          ])
          .where('brand_id', 'in', brandIds)
          .where('facet', '=', 'severity')
          .where('day', '>=', first)
          .where('day', '<=', last)
          .groupBy(['day', 'value'])
          .execute();
  const byDay = new Map<string, { counts: Record<Severity, number>; sum: number; n: number }>();
  for (const day of daysBetween(first, last)) {
    byDay.set(day, { counts: { low: 0, medium: 0, high: 0, critical: 0 }, sum: 0, n: 0 });
  }
  for (const r of rows) {
    const d = byDay.get(r.day);
    if (!d || !SEVERITIES.includes(r.value as Severity)) continue;
    d.counts[r.value as Severity] += Number(r.mentions);
    d.sum += Number(r.sentiment_sum);
    d.n += Number(r.sentiment_n);
  }
  return [...byDay].map(
    ([day, d]): DayVolume => ({
      day,
      bySeverity: d.counts,
      sentiment: d.n ? Math.round((d.sum / d.n) * 100) / 100 : null,
    }),
  );
}

/** The most frequent values of a facet over the range: publishers, topics, source types. */
export async function topValues(
  db: Db,
  brandIds: string[],
  facet: 'publisher' | 'topic' | 'type',
  first: string,
  last: string,
  limit = 8,
) {
  if (brandIds.length === 0) return [];
  const rows = await db
    .selectFrom('coverage_days')
    .select((eb) => ['value', eb.fn.sum<number>('mentions').as('mentions')])
    .where('brand_id', 'in', brandIds)
    .where('facet', '=', facet)
    .where('day', '>=', first)
    .where('day', '<=', last)
    .groupBy('value')
    .orderBy('mentions', 'desc')
    .orderBy('value')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ value: r.value, mentions: Number(r.mentions) }));
}

/** Stories by status now (closed included), from the counts the triggers keep. */
export async function storiesByStatus(db: Db, brandIds: string[]) {
  const counts: Record<StoryStatus, number> = { new: 0, assigned: 0, in_progress: 0, closed: 0 };
  if (brandIds.length === 0) return counts;
  const rows = await db
    .selectFrom('story_status_counts')
    .select((eb) => ['status', eb.fn.sum<number>('stories').as('stories')])
    .where('brand_id', 'in', brandIds)
    .groupBy('status')
    .execute();
  for (const r of rows) if (r.status in counts) counts[r.status] = Number(r.stories);
  return counts;
}

/**
 * Per brand, busiest first: mentions in the range and in the range as long before it,
 * high and critical ones, mean sentiment, and its open stories.
 */
export async function portfolio(db: Db, brandIds: string[], first: string, last: string) {
  if (brandIds.length === 0) return [];
  const span = daysBetween(first, last).length;
  const before = nextDate(first, -span);
  const mentions = await db
    .selectFrom('coverage_days')
    .select((eb) => [
      'brand_id',
      eb.fn
        .sum<number>(eb.case().when('day', '>=', first).then(eb.ref('mentions')).else(0).end())
        .as('now'),
      eb.fn
        .sum<number>(eb.case().when('day', '<', first).then(eb.ref('mentions')).else(0).end())
        .as('before'),
      eb.fn
        .sum<number>(
          eb
            .case()
            .when(eb.and([eb('day', '>=', first), eb('value', 'in', ['high', 'critical'])]))
            .then(eb.ref('mentions'))
            .else(0)
            .end(),
        )
        .as('serious'),
      eb.fn
        .sum<number>(eb.case().when('day', '>=', first).then(eb.ref('sentiment_sum')).else(0).end())
        .as('sentiment_sum'),
      eb.fn
        .sum<number>(eb.case().when('day', '>=', first).then(eb.ref('sentiment_n')).else(0).end())
        .as('sentiment_n'),
    ])
    .where('brand_id', 'in', brandIds)
    .where('facet', '=', 'severity')
    .where('day', '>=', before)
    .where('day', '<=', last)
    .groupBy('brand_id')
    .execute();
  const open = await db
    .selectFrom('story_status_counts')
    .select((eb) => ['brand_id', eb.fn.sum<number>('stories').as('open')])
    .where('brand_id', 'in', brandIds)
    .where('status', '!=', 'closed')
    .groupBy('brand_id')
    .execute();
  const brands = await db
    .selectFrom('brands')
    .select(['id', 'host', 'name'])
    .where('id', 'in', brandIds)
    .execute();
  const out = new Map<
    string,
    {
      host: string;
      name: string;
      mentions: number;
      previous: number;
      serious: number;
      sentiment: number | null;
      open: number;
    }
  >();
  for (const b of brands) {
    out.set(b.id, {
      host: b.host,
      name: b.name,
      mentions: 0,
      previous: 0,
      serious: 0,
      sentiment: null,
      open: 0,
    });
  }
  for (const m of mentions) {
    const n = Number(m.sentiment_n);
    const row = out.get(m.brand_id);
    if (!row) continue;
    Object.assign(row, {
      mentions: Number(m.now),
      previous: Number(m.before),
      serious: Number(m.serious),
      sentiment: n ? Math.round((Number(m.sentiment_sum) / n) * 100) / 100 : null,
    });
  }
  for (const o of open) {
    const row = out.get(o.brand_id);
    if (row) row.open = Number(o.open);
  }
  return [...out.values()].sort((a, b) => b.mentions - a.mentions || a.host.localeCompare(b.host));
}

/** Brands per statement in the newest-serious query: SQLite takes 500 SELECTs in a UNION. */
const BRANDS_PER_QUERY = 100;

/**
 * The newest high and critical stories: for each brand and severity, a range of the index
 * (brand_id, severity, detected_at) read from its newest end, then merged.
 */
export async function newestSerious(db: Db, brandIds: string[], limit = 8) {
  const found: {
    host: string;
    event_uri: string;
    title: string;
    severity: Severity;
    status: StoryStatus;
    detected_at: string;
  }[] = [];
  for (let i = 0; i < brandIds.length; i += BRANDS_PER_QUERY) {
    const parts = brandIds
      .slice(i, i + BRANDS_PER_QUERY)
      .flatMap((brandId) =>
        (['high', 'critical'] as const).map((severity) =>
          db
            .selectFrom('stories')
            .select(['id', 'brand_id', 'event_uri', 'title', 'severity', 'status', 'detected_at'])
            .where('brand_id', '=', brandId)
            .where('severity', '=', severity)
            .orderBy('detected_at', 'desc')
            .limit(limit),
        ),
      );
    const [head, ...rest] = parts;
    if (!head) continue;
    // Each part in parentheses keeps its own ORDER BY and LIMIT (a compound SELECT
    // otherwise takes one for the whole).
    const union = rest.reduce(
      (q, part) => q.unionAll(db.selectFrom(part.as('p')).selectAll()),
      db.selectFrom(head.as('p')).selectAll(),
    );
    const rows = await db
      .selectFrom(union.as('u'))
      .innerJoin('brands as b', 'b.id', 'u.brand_id')
      .select(['b.host', 'u.event_uri', 'u.title', 'u.severity', 'u.status', 'u.detected_at'])
      .orderBy('u.detected_at', 'desc')
      .limit(limit)
      .execute();
    found.push(...rows);
  }
  return found.sort((a, b) => b.detected_at.localeCompare(a.detected_at)).slice(0, limit);
}

/** A person's open phases on these brands, soonest due first (undated last). */
export async function myOpenPhases(db: Db, userId: string, brandIds: string[], limit = 20) {
  if (brandIds.length === 0) return [];
  return db
    .selectFrom('phases as p')
    .innerJoin('advisories as a', (j) =>
      j.onRef('a.id', '=', 'p.advisory_id').on('a.kind', '=', sql.lit('live')),
    )
    .innerJoin('stories as s', 's.id', 'a.story_id')
    .innerJoin('brands as b', 'b.id', 's.brand_id')
    .select(['b.host', 's.event_uri', 's.title as story', 'p.number', 'p.title', 'p.due_on'])
    .where('p.assignee_user_id', '=', userId)
    .where('p.status', '=', 'open')
    .where('s.brand_id', 'in', brandIds)
    .orderBy(sql`case when p.due_on is null then 1 else 0 end`)
    .orderBy('p.due_on')
    .orderBy('s.detected_at', 'desc')
    .limit(limit)
    .execute();
}
