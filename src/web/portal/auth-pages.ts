import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { knownDevice, rememberDevice } from '../../auth/device-cookie.js';
import { endAllSessions } from '../../auth/sessions.js';
import {
  checkPassword,
  countEmailRequest,
  countSignInAttempt,
  forgiveSignIn,
  workspacesOf,
} from '../../auth/sign-in.js';
import type { AppContext } from '../../context.js';
import type { Plan } from '../../db/schema.js';
import {
  completeSignUp,
  PLANS,
  readSignUp,
  requestPasswordReset,
  resetLinkUser,
  resetPassword,
  signUp,
} from '../../domain/sign-up.js';
import { pageError } from '../../errors.js';
import { formField } from '../forms.js';
import { html } from '../html.js';
import { forgedPage, portalRoutes, safeNext } from './guard.js';
import { csrfField, problem, publicPage } from './layout.js';
import {
  csrfToken,
  csrfValid,
  endSession,
  readSession,
  startSession,
  switchAccount,
} from './session.js';

type Req = FastifyRequest<{ Params: Record<string, string>; Querystring: Record<string, string> }>;

/**
 * Signing up, in and out, confirming an email and resetting a password. Forms before
 * sign-in carry the same anti-forgery token as the rest (tied to the browser's CSRF
 * cookie), so another site cannot sign a visitor into its own account either.
 */
export function mountAuthPages(fastify: FastifyInstance, app: AppContext) {
  /** A public form post: the token must match, else nothing happens. */
  const guarded =
    (handler: (req: Req, reply: FastifyReply) => Promise<unknown>) =>
    async (req: Req, reply: FastifyReply) => {
      if (!(await csrfValid(app, req, formField(req, '_csrf')))) {
        return reply.code(403).send(forgedPage());
      }
      return handler(req, reply);
    };

  const signInForm = async (req: Req, reply: FastifyReply, error?: string, notice?: string) =>
    publicPage(
      'Sign in',
      html`<h1>Sign in</h1>
${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}${problem(error)}
<form method="post" action="/signin" class="card">${csrfField(await csrfToken(app, req, reply))}
<input type="hidden" name="next" value="${safeNext(req.query.next ?? formField(req, 'next'))}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${formField(req, 'email')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<p><button type="submit">Sign in</button></p>
<p class="small"><a href="/reset">Forgot your password?</a> · <a href="/signup">Create a team</a></p>
</form>`,
    );

  fastify.get('/signin', async (req: Req, reply) => {
    if (await readSession(app, req)) return reply.redirect(safeNext(req.query.next), 303);
    const notices: Record<string, string> = {
      reset: 'Your password is changed. Sign in with it.',
      out: 'You are signed out.',
    };
    const done = req.query.done ?? '';
    return signInForm(
      req,
      reply,
      undefined,
      Object.hasOwn(notices, done) ? notices[done] : undefined,
    );
  });

  fastify.post(
    '/signin',
    guarded(async (req, reply) => {
      const email = formField(req, 'email').trim().toLowerCase();
      const device = await knownDevice(app, req, email);
      const attempt = await countSignInAttempt(app, req.ip, email, device);
      if (!attempt.allowed) {
        return reply
          .code(429)
          .header('retry-after', '60')
          .send(await signInForm(req, reply, 'Too many attempts. Wait a minute and try again.'));
      }
      const userId = await checkPassword(app, email, formField(req, 'password'));
      if (!userId) {
        return reply
          .code(401)
          .send(await signInForm(req, reply, 'That email and password do not match.'));
      }
      // The right password: this attempt does not count against the address or email.
      await forgiveSignIn(app, attempt);
      const [first] = await workspacesOf(app, userId);
      if (!first) {
        return reply
          .code(403)
          .send(await signInForm(req, reply, 'This user is not an active member of any team.'));
      }
      // A new session every time: a token planted before sign-in never becomes one.
      await endSession(app, reply, await readSession(app, req));
      await startSession(app, reply, userId, first.id);
      await rememberDevice(app, reply, email);
      return reply.redirect(safeNext(formField(req, 'next')), 303);
    }),
  );

  const signUpForm = async (req: Req, reply: FastifyReply, error?: string) =>
    publicPage(
      'Create a team',
      html`<h1>Create a team</h1>${problem(error)}
<form method="post" action="/signup" class="card">${csrfField(await csrfToken(app, req, reply))}
<label for="team">Team name</label><input id="team" name="team" type="text" required minlength="2" maxlength="80" value="${formField(req, 'team')}">
<label for="email">Work email</label><input id="email" name="email" type="email" autocomplete="email" required value="${formField(req, 'email')}">
<label for="plan">Plan</label><select id="plan" name="plan">${PLANS.map(
        (p) =>
          html`<option value="${p}"${p === (formField(req, 'plan') || 'starter') ? html` selected` : ''}>${PLAN_LABELS[p]}</option>`,
      )}</select>
<p><button type="submit">Create the team</button></p>
<p class="small">Have an account? <a href="/signin">Sign in</a></p>
</form>`,
    );

  fastify.get('/signup', async (req: Req, reply) => signUpForm(req, reply));
  fastify.post(
    '/signup',
    guarded(async (req, reply) => {
      const email = formField(req, 'email').trim().toLowerCase();
      if (!(await countEmailRequest(app, 'signup', req.ip, email))) {
        return reply
          .code(429)
          .header('retry-after', '60')
          .send(await signUpForm(req, reply, 'Too many requests. Wait a minute and try again.'));
      }
      try {
        await signUp(app, {
          team: formField(req, 'team'),
          email,
          plan: formField(req, 'plan') as Plan,
        });
      } catch (e) {
        const { status, text } = pageError(e, reply.log);
        return reply.code(status).send(await signUpForm(req, reply, text));
      }
      return publicPage(
        'Check your email',
        html`<h1>Check your email</h1><p>We sent a link to <strong>${email}</strong>. Open it to confirm your address and choose your password.</p>`,
      );
    }),
  );

  const usedLink = publicPage(
    'Link expired',
    html`<h1>This link is no longer valid</h1><p>It is more than 48 hours old or was used already. <a href="/signin">Sign in</a>, or sign up again for a new link.</p>`,
  );
  const choosePassword = async (req: Req, reply: FastifyReply, team: string, error?: string) =>
    publicPage(
      'Choose your password',
      html`<h1>Welcome to Stories</h1><p>Choose the password for your team <strong>${team}</strong>.</p>${problem(error)}
<form method="post" action="/signup/confirm/${req.params.token ?? ''}" class="card">${csrfField(await csrfToken(app, req, reply))}
<label for="password">Password <span class="muted small">(10 characters or more)</span></label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="10">
<p><button type="submit">Create the team</button></p></form>`,
    );
  // Opening the link changes nothing (mail scanners open links too): the form does.
  fastify.get('/signup/confirm/:token', async (req: Req, reply) => {
    const pending = await readSignUp(app, req.params.token ?? '');
    if (!pending) return reply.code(400).send(usedLink);
    return choosePassword(req, reply, pending.team);
  });
  fastify.post(
    '/signup/confirm/:token',
    guarded(async (req, reply) => {
      const pending = await readSignUp(app, req.params.token ?? '');
      if (!pending) return reply.code(400).send(usedLink);
      let made: Awaited<ReturnType<typeof completeSignUp>>;
      try {
        made = await completeSignUp(app, req.params.token ?? '', formField(req, 'password'));
      } catch (e) {
        const { status, text } = pageError(e, reply.log);
        return reply.code(status).send(await choosePassword(req, reply, pending.team, text));
      }
      if (!made) return reply.code(400).send(usedLink);
      await endSession(app, reply, await readSession(app, req));
      await startSession(app, reply, made.userId, made.accountId);
      return reply.redirect('/app/brands?done=welcome', 303);
    }),
  );

  const resetRequestForm = async (req: Req, reply: FastifyReply) =>
    publicPage(
      'Reset your password',
      html`<h1>Reset your password</h1>
<form method="post" action="/reset" class="card">${csrfField(await csrfToken(app, req, reply))}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email" required>
<p><button type="submit">Email me a link</button></p></form>`,
    );
  fastify.get('/reset', async (req: Req, reply) => resetRequestForm(req, reply));
  fastify.post(
    '/reset',
    guarded(async (req, reply) => {
      const email = formField(req, 'email');
      const normalized = email.trim().toLowerCase();
      // A few per address and minute: the form must not become a way to flood an inbox.
      const device = await knownDevice(app, req, normalized);
      if (!(await countEmailRequest(app, 'reset', req.ip, normalized, device))) {
        return reply
          .code(429)
          .header('retry-after', '60')
          .send(await resetRequestForm(req, reply));
      }
      await requestPasswordReset(app, email);
      return publicPage(
        'Check your email',
        html`<h1>Check your email</h1><p>If an account uses that address, we sent it a link to choose a new password. The link works once, for an hour.</p>`,
      );
    }),
  );

  const newPasswordForm = async (req: Req, reply: FastifyReply, error?: string) =>
    publicPage(
      'Choose a new password',
      html`<h1>Choose a new password</h1>${problem(error)}
<form method="post" action="/reset/${req.params.token ?? ''}" class="card">${csrfField(await csrfToken(app, req, reply))}
<label for="password">New password <span class="muted small">(10 characters or more)</span></label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="10">
<p><button type="submit">Set the password</button></p></form>`,
    );
  const expired = publicPage(
    'Link expired',
    html`<h1>This link is no longer valid</h1><p>It was used already or is more than an hour old. <a href="/reset">Ask for a new one</a>.</p>`,
  );
  fastify.get('/reset/:token', async (req: Req, reply) => {
    if (!(await resetLinkUser(app, req.params.token ?? ''))) return reply.code(400).send(expired);
    return newPasswordForm(req, reply);
  });
  fastify.post(
    '/reset/:token',
    guarded(async (req, reply) => {
      let done: Awaited<ReturnType<typeof resetPassword>>;
      try {
        done = await resetPassword(app, req.params.token ?? '', formField(req, 'password'));
      } catch (e) {
        const { status, text } = pageError(e, reply.log);
        return reply.code(status).send(await newPasswordForm(req, reply, text));
      }
      if (!done) return reply.code(400).send(expired);
      // Whoever knew the old password is signed out everywhere.
      await endAllSessions(app, done.userId);
      if (done.joined) {
        // An invited teammate chose their first password: they are in, signed in, and go
        // where the invitation leads (the phase they were assigned), not to sign in again.
        await endSession(app, reply, await readSession(app, req));
        await startSession(app, reply, done.userId, done.joined);
        return reply.redirect(done.next ? safeNext(done.next) : '/app?done=joined', 303);
      }
      return reply.redirect('/signin?done=reset', 303);
    }),
  );

  const routes = portalRoutes(fastify, app, null);
  routes.post('/signout', async (_req, reply, v) => {
    await endSession(app, reply, v.session);
    return reply.redirect('/signin?done=out', 303);
  });
  routes.post('/app/switch', async (req, reply, v) => {
    if (!(await switchAccount(app, v.session, formField(req, 'account')))) {
      return reply.code(404).send(publicPage('Not found', html`<h1>Not found</h1>`));
    }
    return reply.redirect('/app?done=switched', 303);
  });
}

export const PLAN_LABELS: Record<Plan, string> = {
  starter: 'Starter: the portal',
  pro: 'Pro: the portal, more seats',
  partner: 'Partner: the portal and the REST API',
  agency: 'Agency: the API and client brands',
};
