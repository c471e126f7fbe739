import type { Kysely } from 'kysely';

/**
 * Issue 19: the stories list shows the stories asked for from a URL while they are made,
 * and those that could not be, for a day. One row per request, beside its job (the job
 * keeps its state; this says whose brand and which URL, findable by brand).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('story_requests')
    .addColumn('job_id', 'text', (c) => c.primaryKey())
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('requested_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('story_requests_brand')
    .on('story_requests')
    .columns(['brand_id', 'created_at'])
    .execute();
}
