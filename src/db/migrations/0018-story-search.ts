import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * Issue 20: full-text search over stories, the same on both databases.
 *
 * One document per story (`story_documents`), written by the code that changes what it
 * holds (src/domain/story-documents.ts): its body is the story's words already folded to
 * lowercase letters and digits separated by single spaces, so SQLite's FTS5 and
 * PostgreSQL's `simple` configuration cut it into the same terms and find the same
 * stories. SQLite indexes it with an external-content FTS5 table kept by triggers;
 * PostgreSQL with a GIN index on the expression its queries use.
 *
 * Stories stored before this migration get their documents from a job it queues
 * (`search.backfill`): building a document folds text in JavaScript, which SQL cannot do
 * the same way on both databases. Only this release's workers claim that job.
 *
 * Saved views: a user's named search, per account.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('story_documents')
    .ifNotExists()
    // FTS5 refers to its content by an integer rowid: an INTEGER PRIMARY KEY, which VACUUM
    // keeps (an implicit rowid it may renumber).
    .addColumn('doc_id', postgres ? 'bigserial' : 'integer', (c) => c.primaryKey())
    .addColumn('story_id', 'text', (c) => c.notNull().unique())
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('language', 'text')
    .addColumn('sentiment', 'real')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('story_documents_brand')
    .ifNotExists()
    .on('story_documents')
    .column('brand_id')
    .execute();
  if (postgres) {
    await sql`create index if not exists story_documents_body on story_documents using gin (to_tsvector('simple', body))`.execute(
      db,
    );
  } else {
    await sql`create virtual table if not exists story_fts using fts5(body, content='story_documents', content_rowid='doc_id', tokenize='unicode61 remove_diacritics 0')`.execute(
      db,
    );
    await sql`create trigger if not exists story_documents_ai after insert on story_documents begin
  insert into story_fts (rowid, body) values (new.doc_id, new.body);
end`.execute(db);
    await sql`create trigger if not exists story_documents_ad after delete on story_documents begin
  insert into story_fts (story_fts, rowid, body) values ('delete', old.doc_id, old.body);
end`.execute(db);
    await sql`create trigger if not exists story_documents_au after update of body on story_documents begin
  insert into story_fts (story_fts, rowid, body) values ('delete', old.doc_id, old.body);
  insert into story_fts (rowid, body) values (new.doc_id, new.body);
end`.execute(db);
  }

  await db.schema
    .createTable('saved_views')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    /** The search's query string, as the portal's search form sends it. */
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('saved_views_owner', ['account_id', 'user_id', 'name'])
    .execute();

  // Queued only where there are stories to give documents to (not on a new database).
  const now = new Date().toISOString();
  await sql`insert into jobs (id, name, payload, status, attempts, max_attempts, run_at, locked_until, locked_by, last_error, result, created_at, updated_at)
select 'job_searchbackfill0018', 'search.backfill', '{}', 'queued', 0, 8, ${now}, null, null, null, null, ${now}, ${now}
where exists (select 1 from stories)
on conflict (id) do nothing`.execute(db);
}
