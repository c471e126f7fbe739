import type { Db } from '../db/database.js';
import { conflict, notFound } from '../errors.js';
import { newId } from '../ids.js';

/** A user keeps at most this many searches per account. */
export const MAX_SAVED_VIEWS = 50;

interface Owner {
  accountId: string;
  userId: string;
}

/** A user's saved searches in this account, by name. */
export function listSavedViews(db: Db, owner: Owner) {
  return db
    .selectFrom('saved_views')
    .select(['id', 'name', 'query', 'created_at'])
    .where('account_id', '=', owner.accountId)
    .where('user_id', '=', owner.userId)
    .orderBy('name')
    .execute();
}

/**
 * Saves a search under a name; saving again under a name the user already gave replaces
 * that view's search (a name is unique per user and account).
 */
export async function saveView(
  db: Db,
  owner: Owner,
  view: { name: string; query: string },
  at: string,
): Promise<string> {
  const existing = await db
    .selectFrom('saved_views')
    .select('id')
    .where('account_id', '=', owner.accountId)
    .where('user_id', '=', owner.userId)
    .where('name', '=', view.name)
    .executeTakeFirst();
  if (existing) {
    await db
      .updateTable('saved_views')
      .set({ query: view.query })
      .where('id', '=', existing.id)
      .execute();
    return existing.id;
  }
  const { count } = await db
    .selectFrom('saved_views')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', owner.accountId)
    .where('user_id', '=', owner.userId)
    .executeTakeFirstOrThrow();
  if (Number(count) >= MAX_SAVED_VIEWS) {
    throw conflict(`you have ${MAX_SAVED_VIEWS} saved searches: delete one first`);
  }
  const id = newId('view');
  await db
    .insertInto('saved_views')
    .values({
      id,
      account_id: owner.accountId,
      user_id: owner.userId,
      name: view.name,
      query: view.query,
      created_at: at,
    })
    .execute();
  return id;
}

/** Deletes one of the user's own views; someone else's is unknown (404). */
export async function deleteView(db: Db, owner: Owner, id: string): Promise<void> {
  const r = await db
    .deleteFrom('saved_views')
    .where('id', '=', id)
    .where('account_id', '=', owner.accountId)
    .where('user_id', '=', owner.userId)
    .executeTakeFirst();
  if (Number(r.numDeletedRows) === 0) throw notFound();
}
