import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { TIME_ZONES } from '../../domain/profile.js';
import { pageError } from '../../errors.js';
import { changePassword, readProfile, updateProfile } from '../../operations/portal/profile.js';
import { formField } from '../forms.js';
import { html } from '../html.js';
import { portalRoutes, run, type View } from './guard.js';
import { appPage, csrfField, notice, problem } from './layout.js';
import { startSession } from './session.js';

/** The zones offered, with the one chosen when the list leaves it out (an alias). */
const zonesWith = (chosen: string | null) =>
  chosen && !TIME_ZONES.includes(chosen) ? [chosen, ...TIME_ZONES] : TIME_ZONES;

/** Your profile: your name, the time zone times are shown in, and your password. */
export function mountProfilePages(fastify: FastifyInstance, app: AppContext) {
  const routes = portalRoutes(fastify, app, null);

  async function profilePage(v: View, extra: { done?: string; error?: string }) {
    const me = await run(app, v, readProfile, {});
    return appPage(
      v,
      'Your profile',
      html`<h1>Your profile</h1>${notice(extra.done)}${problem(extra.error)}
<form method="post" action="/app/profile" class="card">${csrfField(v.csrf)}
<p class="muted small">Signed in as ${me.email}.</p>
<label for="profile-name">Your name</label><input id="profile-name" name="name" type="text" maxlength="80" value="${me.name ?? ''}" autocomplete="name">
<p class="small muted">Your team sees it in the activity and on what is assigned to you, instead of your email.</p>
<label for="profile-zone">Time zone</label><select id="profile-zone" name="time_zone">
<option value="" data-browser-zone>Your browser's</option>${zonesWith(me.time_zone).map(
        (z) =>
          html`<option value="${z}"${z === me.time_zone ? html` selected` : ''}>${z.replaceAll('_', ' ')}</option>`,
      )}</select>
<p class="small muted">Times on every page are shown in it; without JavaScript they read in UTC.</p>
<p><button type="submit">Save</button></p></form>
<h2>Change your password</h2>
<form method="post" action="/app/profile/password" class="card">${csrfField(v.csrf)}
<label for="current-password">Current password</label><input id="current-password" name="current_password" type="password" required autocomplete="current-password">
<label for="new-password">New password (at least 8 characters)</label><input id="new-password" name="new_password" type="password" required minlength="8" autocomplete="new-password">
<p class="small muted">Every other browser and device signed in as you is signed out.</p>
<p><button type="submit">Change password</button></p></form>`,
    );
  }

  routes.get('/app/profile', async (req, _reply, v) => profilePage(v, { done: req.query.done }));
  routes.post('/app/profile', async (req, reply, v) => {
    try {
      await run(app, v, updateProfile, {
        name: formField(req, 'name'),
        time_zone: formField(req, 'time_zone'),
      });
      return reply.redirect('/app/profile?done=profile', 303);
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(await profilePage(v, { error: text }));
    }
  });
  routes.post('/app/profile/password', async (req, reply, v) => {
    try {
      await run(app, v, changePassword, {
        current_password: formField(req, 'current_password'),
        new_password: formField(req, 'new_password'),
      });
      // Every session ended with the change: this browser goes on in a new one.
      await startSession(app, reply, v.session.userId, v.session.account.id);
      return reply.redirect('/app/profile?done=password', 303);
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(await profilePage(v, { error: text }));
    }
  });
}
