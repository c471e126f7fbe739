import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * Issue 20: the overview reads aggregates kept up to date as stories change, never
 * recomputed per request.
 *
 * `coverage_days`: mentions (articles) per brand and UTC day, by the story's severity,
 * by publisher and by topic, with the sum and count of their sentiment scores. Written by
 * the code that stores an article (src/domain/coverage.ts), which knows the scores; the
 * articles already stored are counted once by a job this migration queues, under their
 * story's severity and topics as they are now.
 *
 * `story_status_counts`: stories per brand and status. Kept by triggers, because a
 * story's status changes in many places (assignments, phases, closing, proposals, team
 * changes) and a trigger cannot be forgotten by the next one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // Each step may run again: SQLite's migrations are not one transaction (no
  // transactional DDL in Kysely's SQLite adapter), so a run cut short is run again.
  await db.schema
    .createTable('coverage_days')
    .ifNotExists()
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
    .ifNotExists()
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('stories', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('story_status_counts_pk', ['brand_id', 'status'])
    .execute();

  // The triggers first, then the count of what is there, set rather than added, in one
  // statement: a story written meanwhile (the previous release serves on) is counted by
  // the trigger or by the statement, and overwritten by the statement's count if both.
  // On PostgreSQL the table is locked against writes until the migration commits, so no
  // write falls between the statement's snapshot and the trigger's first run.
  if (postgres) {
    // Both rows in key order within one statement: two transactions moving stories in
    // opposite directions lock the pair in the same order, so they cannot deadlock.
    await sql`create or replace function story_status_count() returns trigger language plpgsql as $$
begin
  insert into story_status_counts (brand_id, status, stories)
  select b, s, d from (
    select old.brand_id as b, old.status as s, -1 as d where tg_op in ('UPDATE', 'DELETE')
    union all select new.brand_id, new.status, 1 where tg_op in ('UPDATE', 'INSERT')
  ) x order by b, s
  on conflict (brand_id, status) do update set stories = story_status_counts.stories + excluded.stories;
  return null;
end $$`.execute(db);
    await sql`lock table stories in share row exclusive mode`.execute(db);
    for (const [name, when] of [
      ['stories_status_insert', 'after insert on stories for each row'],
      ['stories_status_delete', 'after delete on stories for each row'],
      [
        'stories_status_update',
        'after update of status, brand_id on stories for each row when (old.status is distinct from new.status or old.brand_id is distinct from new.brand_id)',
      ],
    ] as const) {
      // PostgreSQL runs the migrations in one transaction: a run cut short left nothing.
      await sql
        .raw(`create trigger ${name} ${when} execute function story_status_count()`)
        .execute(db);
    }
  } else {
    const add = (row: 'new' | 'old', d: number) =>
      sql.raw(`insert into story_status_counts (brand_id, status, stories) values (${row}.brand_id, ${row}.status, ${d})
  on conflict (brand_id, status) do update set stories = stories + ${d};`);
    await sql`create trigger if not exists stories_status_insert after insert on stories begin
  ${add('new', 1)}
end`.execute(db);
    await sql`create trigger if not exists stories_status_delete after delete on stories begin
  ${add('old', -1)}
end`.execute(db);
    await sql`create trigger if not exists stories_status_update after update of status, brand_id on stories
when old.status is not new.status or old.brand_id is not new.brand_id begin
  ${add('old', -1)}
  ${add('new', 1)}
end`.execute(db);
  }
  await sql`insert into story_status_counts (brand_id, status, stories)
select brand_id, status, count(*) from stories where true group by brand_id, status
on conflict (brand_id, status) do update set stories = excluded.stories`.execute(db);

  // The newest high and critical stories of a brand: a range of this index per severity.
  await db.schema
    .createIndex('stories_brand_severity')
    .ifNotExists()
    .on('stories')
    .columns(['brand_id', 'severity', 'detected_at'])
    .execute();
  // "Assigned to me": a person's open phases.
  await db.schema
    .createIndex('phases_assignee')
    .ifNotExists()
    .on('phases')
    .columns(['assignee_user_id', 'status'])
    .execute();

  // The mentions already stored are counted by a job (coverage.backfill), not here: a scan
  // of every article would hold this migration's locks for as long. Only where there are
  // articles, and only those created before now: the new release counts the rest.
  const now = new Date().toISOString();
  await sql`insert into jobs (id, name, payload, status, attempts, max_attempts, run_at, locked_until, locked_by, last_error, result, created_at, updated_at)
select 'job_coveragebackfill0019', 'coverage.backfill', ${JSON.stringify({ before: now })}, 'queued', 0, 8, ${now}, null, null, null, null, ${now}, ${now}
where exists (select 1 from articles)
on conflict (id) do nothing`.execute(db);
}
