import type { Kysely } from 'kysely';

/**
 * Issue 17: the portal's Connected apps page lists a member's OAuth grants with their
 * client and last use. Records carry their subject (the membership, `account:user`) so
 * a member's grants are found without reading every payload, and grants their last use.
 */
/** The table as this migration leaves it (later ones may change it). */
interface Tables {
  oauth_records: { kind: string; id: string; payload: string; subject: string | null };
}

export async function up(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as Kysely<Tables>;
  await db.schema.alterTable('oauth_records').addColumn('subject', 'text').execute();
  await db.schema.alterTable('oauth_records').addColumn('last_used_at', 'text').execute();
  await db.schema
    .createIndex('oauth_records_subject')
    .on('oauth_records')
    .columns(['kind', 'subject'])
    .execute();
  // Grants made before: their subject is in the payload.
  const grants = await db
    .selectFrom('oauth_records')
    .select(['id', 'payload'])
    .where('kind', '=', 'Grant')
    .execute();
  for (const g of grants) {
    const subject = (JSON.parse(g.payload) as { accountId?: string }).accountId ?? null;
    await db
      .updateTable('oauth_records')
      .set({ subject })
      .where('kind', '=', 'Grant')
      .where('id', '=', g.id)
      .execute();
  }
}
