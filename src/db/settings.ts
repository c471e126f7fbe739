import type { Db } from './database.js';

/** A value of the `settings` table (secrets and keys made once per database), if set. */
export async function readSetting(db: Db, key: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('settings')
    .select('value')
    .where('key', '=', key)
    .executeTakeFirst();
  return row?.value;
}

/** Stores a setting unless one is there already: the first process to store it wins. */
export async function storeSettingOnce(db: Db, key: string, value: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
}
