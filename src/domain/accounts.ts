import { hashPassword } from '../auth/passwords.js';
import { type AppContext, inTransaction } from '../context.js';
import type { Db } from '../db/database.js';
import type { Plan, Role } from '../db/schema.js';
import { AppError, conflict, invalid } from '../errors.js';
import { newId } from '../ids.js';
import { writeAudit } from './audit.js';

export async function createAccount(app: AppContext, name: string, plan: Plan): Promise<string> {
  const id = newId('acc', 12);
  const now = app.clock.now().toISOString();
  await inTransaction(app, async (app) => {
    const trx = app.db;
    await trx
      .insertInto('accounts')
      .values({ id, name, plan, state: 'active', trial_ends_at: null, created_at: now })
      .execute();
    await writeAudit(trx, {
      accountId: id,
      actor: 'operator',
      action: 'account.created',
      details: { plan },
      at: now,
    });
  });
  return id;
}

export async function requireAccount(app: AppContext, id: string) {
  const account = await app.db
    .selectFrom('accounts')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  if (!account) throw new AppError('not_found', `account ${id}: not found`);
  return account;
}

/** Creates the user (or finds them by email) and makes them a member of the account. */
export async function addUser(
  app: AppContext,
  {
    accountId,
    email,
    password,
    role,
  }: { accountId: string; email: string; password: string | null; role: Role },
): Promise<string> {
  await requireAccount(app, accountId);
  const normalized = email.trim().toLowerCase();
  if (password !== null && password.length < 8)
    throw invalid('password: must be at least 8 characters');
  const passwordHash = password === null ? null : await hashPassword(password);
  const now = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    const existing = await trx
      .selectFrom('users')
      .select('id')
      .where('email', '=', normalized)
      .executeTakeFirst();
    const userId = existing?.id ?? newId('usr');
    if (!existing) {
      await trx
        .insertInto('users')
        .values({
          id: userId,
          email: normalized,
          name: null,
          password_hash: passwordHash,
          email_verified_at: now,
          created_at: now,
        })
        .execute();
    }
    const member = await trx
      .selectFrom('memberships')
      .select('role')
      .where('account_id', '=', accountId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (member) throw conflict('email: already a member of this account');
    await trx
      .insertInto('memberships')
      .values({ account_id: accountId, user_id: userId, role, status: 'active', created_at: now })
      .execute();
    await writeAudit(trx, {
      accountId,
      actor: 'operator',
      action: 'member.added',
      details: { user: userId, role },
      at: now,
    });
    return userId;
  });
}

/** An active member of an account, with what the policy needs to know of them; or undefined. */
export async function activeMember(app: AppContext, accountId: string, userId: string) {
  return app.db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select([
      'm.user_id',
      'm.account_id',
      'm.role',
      'u.email',
      'a.name as workspace',
      'a.plan',
      'a.trial_plan',
      'a.trial_ends_at',
    ])
    .where('m.account_id', '=', accountId)
    .where('m.user_id', '=', userId)
    .where('m.status', '=', 'active')
    .executeTakeFirst();
}

/** Whether the database holds any account yet (a fresh one gets the demo). */
export async function hasAccounts(app: AppContext): Promise<boolean> {
  return (
    (await app.db.selectFrom('accounts').select('id').limit(1).executeTakeFirst()) !== undefined
  );
}

/** The id of the user with this email (as stored: trimmed, lowercase), if there is one. */
export async function userIdByEmail(db: Db, email: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('email', '=', email.trim().toLowerCase())
    .executeTakeFirst();
  return row?.id;
}

/** The addresses of an account's active owners and admins: who hears of what befalls it. */
export async function ownerAndAdminEmails(db: Db, accountId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select('u.email')
    .where('m.account_id', '=', accountId)
    .where('m.status', '=', 'active')
    .where('m.role', 'in', ['owner', 'admin'])
    .orderBy('u.email')
    .execute();
  return rows.map((r) => r.email);
}
