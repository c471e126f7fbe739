import type { Kysely } from 'kysely';

/**
 * Issue 43. Posts that name a brand with too little reach to make a story alone
 * (domain/quiet-posts.ts): kept as the brand's mentions, and made one story together when
 * several people post about one thing. A post that becomes a story's source leaves here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema;
  await s
    .createTable('quiet_mentions')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('brand_id', 'text', (c) => c.notNull().references('brands.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('publisher', 'text', (c) => c.notNull())
    .addColumn('author', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('language', 'text')
    .addColumn('sentiment', 'real')
    .addColumn('reach', 'integer', (c) => c.notNull())
    .addColumn('links', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('quiet_mentions_brand_url', ['brand_id', 'url'])
    .execute();
  // The mentions page and the grouping read a brand's newest first.
  await s
    .createIndex('quiet_mentions_brand_created')
    .ifNotExists()
    .on('quiet_mentions')
    .columns(['brand_id', 'created_at'])
    .execute();
  // Spikes count every brand's mentions of the last hour; retention prunes the oldest.
  await s
    .createIndex('quiet_mentions_created')
    .ifNotExists()
    .on('quiet_mentions')
    .columns(['created_at'])
    .execute();
}
