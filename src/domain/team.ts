import { effectivePlan } from '../auth/effective-plan.js';
import { type AppContext, inTransaction } from '../context.js';
import { lockRow } from '../db/locks.js';
import { forgetSubject } from '../db/oauth-store.js';
import type { Role } from '../db/schema.js';
import { queueEmail } from '../email/outbox.js';
import { AppError, conflict, forbidden, notFound } from '../errors.js';
import { subjectOf } from '../oauth/subject.js';
import { writeAudit } from './audit.js';
import { passwordLink } from './sign-up.js';
import { resolveTeammate } from './teammates.js';

/** An invitation stays usable this long: long enough for a holiday. */
export const INVITE_LINK_TTL_MS = 7 * 24 * 3600_000;

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
      .select(['password_hash'])
      .where('id', '=', t.userId)
      .executeTakeFirstOrThrow();
    await sendInvitation(
      app,
      account,
      { user_id: t.userId, email: t.email, ...user },
      opts.invitedBy,
      now,
    );
    return { email: t.email };
  });
}

/** The invitation email, with a link to choose a password (seven days). */
async function sendInvitation(
  app: AppContext,
  account: { id: string; name: string },
  to: { user_id: string; email: string; password_hash: string | null },
  invitedBy: string | null,
  now: string,
) {
  const link = await passwordLink(
    app,
    { id: to.user_id, password_hash: to.password_hash },
    INVITE_LINK_TTL_MS,
    { accountId: account.id },
  );
  await queueEmail(
    app.db,
    {
      accountId: account.id,
      to: to.email,
      kind: 'invitation',
      subject: `You are invited to ${account.name} on Stories`,
      text: `${invitedBy ?? 'A teammate'} invited you to the ${account.name} team on Stories.\n\nChoose your password to join (the link works for 7 days):\n\n${link}`,
    },
    now,
  );
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
    const member = await memberByEmail(app, opts.accountId, opts.email);
    if (!member) throw notFound();
    if (member.role === 'owner' && opts.role !== 'owner') {
      if ((await activeOwners(app, opts.accountId)) <= 1) {
        throw conflict('role: the account needs an owner');
      }
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

/**
 * Takes a member out of the team, or cancels an invitation: the seat is free at once,
 * their portal session and MCP access (activeMember) stop at the next request, their
 * connected apps here are forgotten, and what was assigned to them goes back to nobody
 * (an assigned story reads `new` again; done phases keep who did them). Owners remove
 * anyone; admins remove members and admins. Nobody removes themselves here, and the
 * account always keeps an owner.
 */
export async function removeMember(
  app: AppContext,
  opts: {
    accountId: string;
    email: string;
    by: { userId: string | null; role: Role };
    actor: string;
  },
) {
  const at = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    await lockRow(trx, 'accounts', { id: opts.accountId });
    const member = await memberByEmail(app, opts.accountId, opts.email);
    if (!member) throw notFound();
    if (member.user_id === opts.by.userId) {
      throw conflict('email: you cannot remove yourself; another owner or admin can');
    }
    if (member.role === 'owner' && opts.by.role !== 'owner') {
      throw forbidden('only an owner removes an owner');
    }
    if (
      member.role === 'owner' &&
      member.status === 'active' &&
      (await activeOwners(app, opts.accountId)) <= 1
    ) {
      throw conflict('email: the account needs an owner');
    }
    await trx
      .deleteFrom('memberships')
      .where('account_id', '=', opts.accountId)
      .where('user_id', '=', member.user_id)
      .execute();
    const brands = trx.selectFrom('brands').select('id').where('account_id', '=', opts.accountId);
    // An assigned story with nobody on it is new again (docs/api.md, "Story status").
    await trx
      .updateTable('stories')
      .set({ status: 'new' })
      .where('assignee_user_id', '=', member.user_id)
      .where('status', '=', 'assigned')
      .where('brand_id', 'in', brands)
      .execute();
    const stories = await trx
      .updateTable('stories')
      .set({ assignee_user_id: null })
      .where('assignee_user_id', '=', member.user_id)
      .where('brand_id', 'in', brands)
      .executeTakeFirst();
    const phases = await trx
      .updateTable('phases')
      .set({ assignee_user_id: null })
      .where('assignee_user_id', '=', member.user_id)
      .where('status', '=', 'open')
      .where('advisory_id', 'in', (eb) =>
        eb
          .selectFrom('advisories as a')
          .innerJoin('stories as s', 's.id', 'a.story_id')
          .select('a.id')
          .where('s.brand_id', 'in', brands),
      )
      .executeTakeFirst();
    await forgetSubject(trx, subjectOf(opts.accountId, member.user_id));
    await writeAudit(trx, {
      accountId: opts.accountId,
      actor: opts.actor,
      action: member.status === 'invited' ? 'member.invitation_cancelled' : 'member.removed',
      details: {
        email: member.email,
        unassigned: Number(stories.numUpdatedRows) + Number(phases.numUpdatedRows),
      },
      at,
    });
    return { email: member.email, status: member.status };
  });
}

/** Sends an invited teammate a fresh link (the earlier ones work until a password is chosen). */
export async function resendInvitation(
  app: AppContext,
  opts: { accountId: string; email: string; invitedBy: string | null; actor: string },
) {
  // A few a day per address: enough to reach someone, too few to flood their mailbox.
  const sent = await app.limiter.hit(
    `invite-resend:${opts.email.trim().toLowerCase()}`,
    86_400_000,
  );
  if (sent.count > 3) throw new AppError('rate_limited', undefined, { 'retry-after': '86400' });
  const account = await accountOf(app, opts.accountId);
  const now = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const member = await memberByEmail(app, opts.accountId, opts.email);
    if (!member) throw notFound();
    if (member.status !== 'invited') throw conflict('email: already a member of this team');
    await sendInvitation(app, account, member, opts.invitedBy, now);
    await writeAudit(app.db, {
      accountId: opts.accountId,
      actor: opts.actor,
      action: 'member.invitation_resent',
      details: { email: member.email },
      at: now,
    });
    return { email: member.email };
  });
}

/** A member or invitee of the account by email, with their user's password state. */
function memberByEmail(app: AppContext, accountId: string, email: string) {
  return app.db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'm.role', 'm.status', 'u.email', 'u.password_hash'])
    .where('m.account_id', '=', accountId)
    .where('u.email', '=', email.trim().toLowerCase())
    .where('m.status', 'in', ['active', 'invited'])
    .executeTakeFirst();
}

/** How many active owners the account has (in the caller's transaction, under its lock). */
async function activeOwners(app: AppContext, accountId: string): Promise<number> {
  const { owners } = await app.db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number | string>().as('owners'))
    .where('account_id', '=', accountId)
    .where('role', '=', 'owner')
    .where('status', '=', 'active')
    .executeTakeFirstOrThrow();
  return Number(owners);
}
