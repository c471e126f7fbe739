import type { AppContext } from '../context.js';
import { lockRow } from '../db/locks.js';
import type { Plan } from '../db/schema.js';
import { AppError, forbidden } from '../errors.js';
import { newId } from '../ids.js';
import { writeAudit } from './audit.js';

/** Members who hold a seat: active ones and those invited but not yet signed up. */
const SEAT_STATUSES = ['active', 'invited'] as const;

/**
 * The teammate an assignment names, by email (spec section 7): a member of the account;
 * an email of another account is refused (409); an unknown email is refused (404) unless
 * `invite` is true, which invites them into the team as a member, taking a seat (403 when
 * the plan's seat cap is reached).
 */
export async function resolveTeammate(
  app: AppContext,
  {
    account,
    email,
    invite,
    actor,
  }: { account: { id: string; plan: Plan }; email: string; invite: boolean; actor: string },
): Promise<{ userId: string; email: string; invited: boolean }> {
  // The caller's transaction (inTransaction): seats are counted under its lock.
  const trx = app.db;
  const normalized = email.trim().toLowerCase();
  const now = app.clock.now().toISOString();
  // Membership changes of one account run one after another (removeMember takes the same
  // lock), so nobody is assigned in the moment they are taken out of the team.
  await lockRow(trx, 'accounts', { id: account.id });
  const user = await trx
    .selectFrom('users')
    .select('id')
    .where('email', '=', normalized)
    .executeTakeFirst();
  if (user) {
    const memberships = await trx
      .selectFrom('memberships')
      .select(['account_id', 'status'])
      .where('user_id', '=', user.id)
      .where('status', 'in', SEAT_STATUSES)
      .execute();
    if (memberships.some((m) => m.account_id === account.id)) {
      return { userId: user.id, email: normalized, invited: false };
    }
    if (memberships.length > 0) throw new AppError('email_taken');
  }
  if (!invite) throw new AppError('unknown_teammate');

  // Seats are counted under the account's lock taken above.
  const { seats } = await trx
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number | string>().as('seats'))
    .where('account_id', '=', account.id)
    .where('status', 'in', SEAT_STATUSES)
    .executeTakeFirstOrThrow();
  if (Number(seats) >= app.config.seatCaps[account.plan])
    throw forbidden("the plan's seat cap is reached");

  const userId = user?.id ?? newId('usr');
  if (!user) {
    await trx
      .insertInto('users')
      .values({
        id: userId,
        email: normalized,
        name: null,
        password_hash: null,
        email_verified_at: null,
        created_at: now,
      })
      .execute();
  }
  await trx
    .insertInto('memberships')
    .values({
      account_id: account.id,
      user_id: userId,
      role: 'member',
      status: 'invited',
      created_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['account_id', 'user_id']).doUpdateSet({ role: 'member', status: 'invited' }),
    )
    .execute();
  await writeAudit(trx, {
    accountId: account.id,
    actor,
    action: 'member.invited',
    details: { email: normalized },
    at: now,
  });
  return { userId, email: normalized, invited: true };
}
