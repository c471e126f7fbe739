import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { pageError } from '../../errors.js';
import {
  inviteTeammate,
  listTeam,
  removeTeammate,
  resendInvitation,
  setMemberRole,
} from '../../operations/portal/team.js';
import { hasRole } from '../../policy.js';
import { formField } from '../forms.js';
import { html } from '../html.js';
import { confirmationPage } from './confirm.js';
import { portalRoutes, run, type View } from './guard.js';
import { appPage, csrfField, notice, problem } from './layout.js';
import { actorOf } from './session.js';

/** What each role may do, as the question before a role change says it. */
const ROLE_MEANS: Record<string, string> = {
  owner:
    'An owner does everything an admin does, and also changes roles, removes owners, deletes brands and applies proposed updates.',
  admin:
    'An admin manages brands, feeds, API keys, webhooks, invitations and billing, besides working on stories.',
  member:
    'A member works on stories (assigns, marks phases done, adds context, shares), and no longer manages the team, keys, webhooks or billing.',
};

/** The team: members, roles, pending invitations, and the seat cap, shown and enforced. */
export function mountTeamPages(fastify: FastifyInstance, app: AppContext) {
  const routes = portalRoutes(fastify, app, 'team');

  async function teamPage(v: View, extra: { done?: string; error?: string }) {
    const team = await run(app, v, listTeam, {});
    const full = team.seats >= team.cap;
    const owner = hasRole(actorOf(v.session), 'owner');
    const admin = hasRole(actorOf(v.session), 'admin');
    const action = (path: string, email: string, label: string, cls = 'secondary') =>
      html`<form class="inline" method="post" action="${path}">${csrfField(v.csrf)}<input type="hidden" name="email" value="${email}"><button type="submit" class="${cls}">${label}<span class="visually-hidden"> (${email})</span></button></form>`;
    // What removeMember allows: never yourself; an owner only by an owner.
    const memberActions = (m: (typeof team.members)[number]) =>
      m.email === v.session.email || (m.role === 'owner' && !owner)
        ? ''
        : m.status === 'invited'
          ? html`${action('/app/team/resend', m.email, 'Send again')} ${action('/app/team/remove', m.email, 'Cancel invitation', 'danger')}`
          : action('/app/team/remove', m.email, 'Remove', 'danger');
    return appPage(
      v,
      'Team',
      html`<h1>Team</h1>${notice(extra.done)}${problem(extra.error)}
<p><strong>${team.seats} of ${team.cap} seats</strong> used on the ${v.session.account.plan} plan${full ? html` · <span class="badge sev-high">full</span>` : ''}.</p>
<table><thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Since</th>${admin ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : ''}</tr></thead><tbody>
${team.members.map(
  (m) =>
    html`<tr><td>${m.email}</td><td>${
      owner
        ? html`<form class="inline" method="post" action="/app/team/role">${csrfField(v.csrf)}<input type="hidden" name="email" value="${m.email}">
<label class="visually-hidden" for="role-${m.email}">Role of ${m.email}</label> <select id="role-${m.email}" name="role">${[
            'member',
            'admin',
            'owner',
          ].map(
            (r) => html`<option value="${r}"${r === m.role ? html` selected` : ''}>${r}</option>`,
          )}</select> <button type="submit" class="secondary">Change</button></form>`
        : m.role
    }</td><td>${m.status === 'invited' ? html`<span class="badge">invited</span>` : 'active'}</td><td class="small">${m.created_at.slice(0, 10)}</td>${admin ? html`<td>${memberActions(m)}</td>` : ''}</tr>`,
)}</tbody></table>
${
  hasRole(actorOf(v.session), 'admin')
    ? html`<h2>Invite a teammate</h2><form method="post" action="/app/team/invite" class="card row">${csrfField(v.csrf)}
<div><label for="invite-email">Email</label><input id="invite-email" name="email" type="email" required></div>
<button type="submit"${full ? html` disabled` : ''}>Send invitation</button>${full ? html`<span class="muted small">Every seat is taken.</span>` : ''}</form>`
    : ''
}`,
    );
  }

  routes.get('/app/team', async (req, _reply, v) => teamPage(v, { done: req.query.done }));
  routes.post('/app/team/role', async (req, reply, v) => {
    const email = formField(req, 'email');
    const role = formField(req, 'role');
    const asked = confirmationPage(req, v, setMemberRole, ['email', 'role'], {
      title: `Make ${email} ${role === 'admin' || role === 'owner' ? 'an' : 'a'} ${role}?`,
      consequence: html`${ROLE_MEANS[role] ?? ''} It takes effect at their next request.`,
      confirm: `Make them ${role}`,
      back: '/app/team',
    });
    if (asked) return asked;
    try {
      await run(app, v, setMemberRole, {
        email: formField(req, 'email'),
        role: formField(req, 'role'),
      });
      return reply.redirect('/app/team?done=role', 303);
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(await teamPage(v, { error: text }));
    }
  });
  routes.post('/app/team/remove', async (req, reply, v) => {
    const email = formField(req, 'email');
    const team = await run(app, v, listTeam, {});
    const invited = team.members.find((m) => m.email === email)?.status === 'invited';
    const asked = confirmationPage(req, v, removeTeammate, ['email'], {
      title: invited ? `Cancel the invitation of ${email}?` : `Remove ${email} from the team?`,
      consequence: invited
        ? html`The link in their invitation email stops letting them join ${v.session.account.name}, and their seat is free at once. You can invite them again.`
        : html`${email} loses access to ${v.session.account.name} at their next request: the portal, and the apps they connected (Claude, Cursor, …). Stories and open phases assigned to them go back to nobody; phases they marked done keep their name. Their seat is free at once, and you can invite them again.`,
      confirm: invited ? 'Cancel the invitation' : 'Remove from the team',
      back: '/app/team',
    });
    if (asked) return asked;
    try {
      const r = await run(app, v, removeTeammate, { email });
      return reply.redirect(
        `/app/team?done=${r.was === 'invited' ? 'invite-cancelled' : 'removed'}`,
        303,
      );
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(await teamPage(v, { error: text }));
    }
  });
  routes.post('/app/team/resend', async (req, reply, v) => {
    try {
      await run(app, v, resendInvitation, { email: formField(req, 'email') });
      return reply.redirect('/app/team?done=invite-resent', 303);
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(await teamPage(v, { error: text }));
    }
  });
  routes.post('/app/team/invite', async (req, reply, v) => {
    try {
      await run(app, v, inviteTeammate, { email: formField(req, 'email') });
      return reply.redirect('/app/team?done=invited', 303);
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      const seatCap = status === 403 && hasRole(actorOf(v.session), 'admin');
      return reply
        .code(status)
        .send(await teamPage(v, { error: seatCap ? 'Every seat of your plan is taken.' : text }));
    }
  });
}
