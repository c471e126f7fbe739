import type { Kysely } from 'kysely';

/**
 * Issue 14: what the pipeline learnt of each article's bytes and words. Both are null for
 * articles stored before, and for articles a partner imported without a page to read.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('articles')
    /** ISO 639-1 code (`en`, `fr`, …) of the article's language, null when unknown. */
    .addColumn('language', 'text')
    .execute();
  await db.schema
    .alterTable('articles')
    /** WHATWG name of the encoding the page's bytes were decoded from (`utf-8`, `windows-1252`, …). */
    .addColumn('charset', 'text')
    .execute();
}
