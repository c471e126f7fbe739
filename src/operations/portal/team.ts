import { z } from 'zod';
import {
  inviteTeammate as invite,
  listTeam as list,
  removeMember,
  resendInvitation as resend,
  setMemberRole as setRole,
} from '../../domain/team.js';
import { actorLabel } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { Ok, Role, TeammateEmail, Timestamp } from '../schemas.js';

/** The team: members with their roles and status, and the seats the plan allows. */
export const listTeam = defineOperation({
  id: 'list_team',
  summary: 'The team, its roles and its seats',
  input: z.strictObject({}),
  output: z.object({
    members: z.array(
      z.object({
        email: z.string(),
        role: Role,
        status: z.enum(['active', 'invited']),
        created_at: Timestamp,
      }),
    ),
    seats: z.number().int().describe('seats taken (active and invited members)'),
    cap: z.number().int().describe("the plan's seat cap"),
  }),
  access: {},
  portal: true,
  handler: ({ app, actor }) => list(app, actor.accountId),
});

/** Invites a teammate (owners and admins); the seat cap applies. */
export const inviteTeammate = defineOperation({
  id: 'invite_teammate',
  summary: 'Invite a teammate by email',
  input: z.strictObject({ email: TeammateEmail }),
  output: z.object({ ok: Ok, email: z.string() }),
  access: { minRole: 'admin' },
  portal: true,
  async handler({ app, actor }, input) {
    const { email } = await invite(app, {
      accountId: actor.accountId,
      email: input.email,
      invitedBy: actor.kind === 'user' ? actor.email : null,
      actor: actorLabel(actor),
    });
    return { ok: true, email };
  },
});

/** Changes a member's role (owners only); the last owner cannot step down. */
export const setMemberRole = defineOperation({
  id: 'set_member_role',
  summary: "Change a member's role",
  input: z.strictObject({ email: TeammateEmail, role: Role }),
  output: z.object({ ok: Ok, email: z.string(), role: Role }),
  access: { minRole: 'owner' },
  portal: true,
  async handler({ app, actor }, input) {
    await setRole(app, { accountId: actor.accountId, ...input, actor: actorLabel(actor) });
    return { ok: true, email: input.email, role: input.role };
  },
});

/**
 * Takes a teammate out of the team, or cancels an invitation (owners and admins; only
 * owners remove owners): the seat is free, their access here ends at their next request
 * and what was assigned to them goes back to nobody.
 */
export const removeTeammate = defineOperation({
  id: 'remove_teammate',
  summary: 'Remove a teammate, or cancel an invitation',
  input: z.strictObject({ email: TeammateEmail }),
  output: z.object({ ok: Ok, email: z.string(), was: z.enum(['active', 'invited']) }),
  access: { minRole: 'admin' },
  portal: true,
  async handler({ app, actor }, input) {
    const r = await removeMember(app, {
      accountId: actor.accountId,
      email: input.email,
      by: { userId: actor.kind === 'user' ? actor.userId : null, role: actor.role },
      actor: actorLabel(actor),
    });
    return { ok: true, email: r.email, was: r.status };
  },
});

/** Emails an invited teammate a fresh link to join (owners and admins). */
export const resendInvitation = defineOperation({
  id: 'resend_invitation',
  summary: 'Send an invitation again',
  input: z.strictObject({ email: TeammateEmail }),
  output: z.object({ ok: Ok, email: z.string() }),
  access: { minRole: 'admin' },
  portal: true,
  async handler({ app, actor }, input) {
    const r = await resend(app, {
      accountId: actor.accountId,
      email: input.email,
      invitedBy: actor.kind === 'user' ? actor.email : null,
      actor: actorLabel(actor),
    });
    return { ok: true, ...r };
  },
});
