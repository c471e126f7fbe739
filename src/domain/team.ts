import { effectivePlan } from '../auth/effective-plan.js';
import { type AppContext, inTransaction } from '../context.js';
import { lockRow } from '../db/locks.js';
import type { Role } from '../db/schema.js';
import { queueEmail } from '../email/outbox.js';
import { conflict, notFound } from '../errors.js';
import { writeAudit } from './audit.js';
import { passwordLink } from './sign-up.js';
import { resolveTeammate } from './teammates.js';

/** An invitation stays usable this long: long enough for a holiday. */
const INVITE_LINK_TTL_MS = 7 * 24 * 3600_000;

/** The account with the plan it works with now (a reclaim trial's, while it runs). */
async function accountOf(app: AppContext, accountId: string) {
  const a = await app.db
    .selectFrom('accounts')
    .select(['id', 'name', 'plan', 'trial_plan', 'trial_ends_at'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return { id: a.id, name: a.name, plan: effectivePlan(a, app.clock.now()) };
}

/** The team: members with their roles and status, and the seats the plan allows. */
export async function listTeam(app: AppContext, accountId: string) {
  const members = await app.db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.email', 'm.role', 'm.status', 'm.created_at'])
    .where('m.account_id', '=', accountId)
    .where('m.status', 'in', ['active', 'invited'])
    .orderBy('u.email')
    .execute();
  const account = await accountOf(app, accountId);
  return { members, seats: members.length, cap: app.config.seatCaps[account.plan] };
}

/**
 * Invites a teammate: a seat is taken at once (403 past the plan's cap, as for an
 * assignment's invite) and the email carries a link to choose a password, which makes
 * them an active member.
 */
export async function inviteTeammate(
  app: AppContext,
  opts: { accountId: string; email: string; invitedBy: string | null; actor: string },
) {
  const account = await accountOf(app, opts.accountId);
  const now = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    const t = await resolveTeammate(app, {
      account,
      email: opts.email,
      invite: true,
      actor: opts.actor,
    });
    if (!t.invited) throw conflict('email: already a member of this team');
    const user = await trx
      .selectFrom('users')
      .select(['id', 'password_hash'])
      .where('id', '=', t.userId)
      .executeTakeFirstOrThrow();
    const link = await passwordLink(app, user, INVITE_LINK_TTL_MS);
    await queueEmail(
      trx,
      {
        accountId: account.id,
        to: t.email,
        kind: 'invitation',
        subject: `You are invited to ${account.name} on Stories`,
        text: `${opts.invitedBy ?? 'A teammate'} invited you to the ${account.name} team on Stories.\n\nChoose your password to join (the link works for 7 days):\n\n${link}`,
      },
      now,
    );
    return { email: t.email };
  });
}

/** Changes a member's role. The account always keeps an owner: the last one cannot step down. */
export async function setMemberRole(
  app: AppContext,
  opts: { accountId: string; email: string; role: Role; actor: string },
) {
  const at = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    // Role changes of one account run one after another, so two owners demoting each
    // other at once cannot leave it without one.
    await lockRow(trx, 'accounts', { id: opts.accountId });
    const member = await trx
      .selectFrom('memberships as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['m.user_id', 'm.role'])
      .where('m.account_id', '=', opts.accountId)
      .where('u.email', '=', opts.email.trim().toLowerCase())
      .where('m.status', 'in', ['active', 'invited'])
      .executeTakeFirst();
    if (!member) throw notFound();
    if (member.role === 'owner' && opts.role !== 'owner') {
      const { owners } = await trx
        .selectFrom('memberships')
        .select((eb) => eb.fn.countAll<number | string>().as('owners'))
        .where('account_id', '=', opts.accountId)
        .where('role', '=', 'owner')
        .where('status', '=', 'active')
        .executeTakeFirstOrThrow();
      if (Number(owners) <= 1) throw conflict('role: the account needs an owner');
    }
    await trx
      .updateTable('memberships')
      .set({ role: opts.role })
      .where('account_id', '=', opts.accountId)
      .where('user_id', '=', member.user_id)
      .execute();
    await writeAudit(trx, {
      accountId: opts.accountId,
      actor: opts.actor,
      action: 'member.role_changed',
      details: { user: member.user_id, from: member.role, to: opts.role },
      at,
    });
  });
}
