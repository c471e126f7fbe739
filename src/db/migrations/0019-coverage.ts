import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * Issue 20: the overview reads aggregates kept up to date as stories change, never
 * recomputed per request.
 *
 * `coverage_days`: mentions (articles) per brand and UTC day, by the story's severity,
 * by publisher and by topic, with the sum and count of their sentiment scores. Written by
 * the code that stores an article (src/domain/coverage.ts), which knows the scores; here
 * filled once from the articles already stored, counted under their story's severity
 * and topics as they are now.
 *
 * `story_status_counts`: stories per brand and status. Kept by triggers, because a
 * story's status changes in many places (assignments, phases, closing, proposals, team
 * changes) and a trigger cannot be forgotten by the next one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('coverage_days')
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('facet', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('mentions', 'integer', (c) => c.notNull())
    .addColumn('sentiment_sum', 'real', (c) => c.notNull())
    .addColumn('sentiment_n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('coverage_days_pk', ['brand_id', 'facet', 'day', 'value'])
    .execute();
  await db.schema
    .createTable('story_status_counts')
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('stories', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('story_status_counts_pk', ['brand_id', 'status'])
    .execute();
  // The newest high and critical stories of a brand: a range of this index per severity.
  await db.schema
    .createIndex('stories_brand_severity')
    .on('stories')
    .columns(['brand_id', 'severity', 'detected_at'])
    .execute();
  // "Assigned to me": a person's open phases.
  await db.schema
    .createIndex('phases_assignee')
    .on('phases')
    .columns(['assignee_user_id', 'status'])
    .execute();

  await sql`insert into story_status_counts (brand_id, status, stories)
select brand_id, status, count(*) from stories group by brand_id, status`.execute(db);
  const facts = sql`select s.brand_id, substr(a.created_at, 1, 10) as day, s.severity, s.topics,
    substr(a.publisher, 1, 200) as publisher, a.sentiment from articles a join stories s on s.id = a.story_id`;
  const topics = postgres
    ? sql`select f.brand_id, 'topic', f.day, t.value, f.sentiment from (${facts}) f, jsonb_array_elements_text(f.topics::jsonb) as t(value)`
    : sql`select f.brand_id, 'topic', f.day, t.value, f.sentiment from (${facts}) f, json_each(f.topics) as t`;
  await sql`insert into coverage_days (brand_id, facet, day, value, mentions, sentiment_sum, sentiment_n)
select brand_id, facet, day, value, count(*), coalesce(sum(sentiment), 0), count(sentiment) from (
  select brand_id, 'severity' as facet, day, severity as value, sentiment from (${facts}) f
  union all select brand_id, 'publisher', day, publisher, sentiment from (${facts}) f
  union all ${topics}
) x group by brand_id, facet, day, value`.execute(db);

  if (postgres) {
    // Both rows in key order within one statement: two transactions moving stories in
    // opposite directions lock the pair in the same order, so they cannot deadlock.
    await sql`create function story_status_count() returns trigger language plpgsql as $$
begin
  insert into story_status_counts (brand_id, status, stories)
  select b, s, d from (
    select old.brand_id as b, old.status as s, -1 as d where tg_op in ('UPDATE', 'DELETE')
    union all select new.brand_id, new.status, 1 where tg_op in ('UPDATE', 'INSERT')
  ) x order by b, s
  on conflict (brand_id, status) do update set stories = story_status_counts.stories + excluded.stories;
  return null;
end $$`.execute(db);
    await sql`create trigger stories_status_insert after insert on stories
for each row execute function story_status_count()`.execute(db);
    await sql`create trigger stories_status_delete after delete on stories
for each row execute function story_status_count()`.execute(db);
    await sql`create trigger stories_status_update after update of status, brand_id on stories
for each row when (old.status is distinct from new.status or old.brand_id is distinct from new.brand_id)
execute function story_status_count()`.execute(db);
  } else {
    const add = (row: 'new' | 'old', d: number) =>
      sql.raw(`insert into story_status_counts (brand_id, status, stories) values (${row}.brand_id, ${row}.status, ${d})
  on conflict (brand_id, status) do update set stories = stories + ${d};`);
    await sql`create trigger stories_status_insert after insert on stories begin
  ${add('new', 1)}
end`.execute(db);
    await sql`create trigger stories_status_delete after delete on stories begin
  ${add('old', -1)}
end`.execute(db);
    await sql`create trigger stories_status_update after update of status, brand_id on stories
when old.status is not new.status or old.brand_id is not new.brand_id begin
  ${add('old', -1)}
  ${add('new', 1)}
end`.execute(db);
  }
}
