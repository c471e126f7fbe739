import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import {
  decideOnboarding,
  declineInvite,
  type Invite,
  loadInvite,
  readConfirmation,
  startOnboarding,
} from '../domain/onboarding.js';
import { AppError } from '../errors.js';
import { formField, mountFormPages, REDIRECTING_PAGE_HEADERS } from './forms.js';
import { brandedPage, type Html, html, type PageBrand, page } from './html.js';

const WINDOW_MS = 60_000;

/** The onboarding pages show the partner's logo from its own https host, and only they do. */
const ONBOARDING_PAGE_HEADERS = {
  ...REDIRECTING_PAGE_HEADERS,
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src https:; frame-ancestors 'none'",
};

/** The partner's brand kit, as the invite carries it. */
const lookOf = (invite: Invite): PageBrand => ({
  name: invite.partner_name,
  logoUrl: invite.partner_logo_url,
  accent: invite.partner_accent,
});

/** A page of an invite's onboarding, in its partner's name and look. */
const invitePage = (invite: Invite, title: string, body: Html) =>
  brandedPage(title, lookOf(invite), body);

type TokenRequest = FastifyRequest<{ Params: { token: string } }>;

/**
 * The white-label onboarding of a delegation invite, in the partner's name, logo and colour
 * (its brand kit), with "powered by Stories" in small print:
 * sign up with an email on the brand's domain → confirm it through the emailed link →
 * consent → back to the partner's return_url with the brand and the outcome.
 */
export function mountOnboarding(fastify: FastifyInstance, app: AppContext) {
  mountFormPages(fastify, ONBOARDING_PAGE_HEADERS, (pages) => {
    pages.get('/onboard/:token', async (req: TokenRequest, reply) => {
      const invite = await loadInvite(app, req.params.token);
      if (!invite) return gone(reply);
      if (invite.status !== 'pending') return notPending(reply, invite);
      return signUpPage(invite, req.params.token);
    });

    pages.post('/onboard/:token/signup', async (req: TokenRequest, reply) => {
      const invite = await loadInvite(app, req.params.token);
      if (!invite) return gone(reply);
      if (invite.status !== 'pending') return notPending(reply, invite);
      const w = await app.limiter.hit(`onboard:ip:${req.ip}`, WINDOW_MS);
      if (w.count > app.config.authFailuresPerMinute) {
        return reply
          .code(429)
          .header('retry-after', '60')
          .send(signUpPage(invite, req.params.token, 'Too many attempts. Wait a minute.'));
      }
      try {
        const { email } = await startOnboarding(app, invite, { email: formField(req, 'email') });
        return invitePage(
          invite,
          'Check your email',
          html`<h1>Check your email</h1>
<div class="card"><p>We sent a link to <strong>${email}</strong>. Open it to confirm your address and review ${invite.partner_name}'s request.</p></div>`,
        );
      } catch (e) {
        if (!(e instanceof AppError) || e.status >= 500) throw e;
        return reply.code(e.status).send(signUpPage(invite, req.params.token, e.message));
      }
    });

    pages.post('/onboard/:token/decline', async (req: TokenRequest, reply) => {
      const invite = await loadInvite(app, req.params.token);
      if (!invite) return gone(reply);
      if (invite.status !== 'pending') return notPending(reply, invite);
      return reply.redirect(await declineInvite(app, invite), 303);
    });

    pages.get(
      '/onboard/confirm/:link',
      async (req: FastifyRequest<{ Params: { link: string } }>, reply) => {
        const c = await readConfirmation(app, req.params.link);
        if (!c) return gone(reply);
        if ('closed' in c) return gone(reply, c.closed);
        return invitePage(
          c.invite,
          `Connect ${c.invite.brand_host}`,
          html`<p class="muted">Signing up as ${c.signup.email}. Allowing confirms your email and verifies ${c.invite.brand_host}.</p>
<h1>Allow ${c.invite.partner_name} to act on ${c.invite.brand_host}?</h1>
${c.invite.partner_account_name !== c.invite.partner_name ? html`<p class="muted">${c.invite.partner_name} is the display name of the account ${c.invite.partner_account_name}.</p>` : ''}
<div class="card"><p>${c.invite.partner_name} will see the stories and advisories of ${c.invite.brand_host}, unlock advisories (billed to ${c.invite.partner_name}), publish Brand Notes and act on response plans. You can revoke this at any time.</p></div>
<form method="post" action="/onboard/confirm/${c.link}">
${
  c.hasAccount
    ? html`<p class="muted">You already have an account: it is used as it is.</p>`
    : html`<label for="password">Choose a password for your account (at least 8 characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="8">`
}
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="decline" class="secondary" formnovalidate>Decline</button>
</form>`,
        );
      },
    );

    pages.post(
      '/onboard/confirm/:link',
      async (req: FastifyRequest<{ Params: { link: string } }>, reply) => {
        const c = await readConfirmation(app, req.params.link);
        if (!c) return gone(reply);
        if ('closed' in c) return gone(reply, c.closed);
        try {
          const to = await decideOnboarding(app, c, {
            approve: formField(req, 'decision') === 'approve',
            password: formField(req, 'password'),
          });
          return reply.redirect(to, 303);
        } catch (e) {
          if (!(e instanceof AppError) || e.status >= 500) throw e;
          return reply
            .code(e.status)
            .send(
              invitePage(
                c.invite,
                'Cannot connect',
                html`<h1>This cannot go on</h1><div class="card"><p>${e.message}</p></div>`,
              ),
            );
        }
      },
    );
  });
}

function signUpPage(invite: Invite, token: string, problem?: string): string {
  return invitePage(
    invite,
    `Connect ${invite.brand_host}`,
    html`<h1>${invite.partner_name} invites you to connect ${invite.brand_host}</h1>
<p>Enter your email at <strong>${invite.brand_host}</strong>: we send it a link, which proves the brand is yours. Nothing is created before you open it.</p>
${problem ? html`<p class="error" role="alert">${problem}</p>` : ''}
<form class="card" method="post" action="/onboard/${token}/signup">
<label for="email">Work email</label>
<input id="email" name="email" type="email" autocomplete="email" required placeholder="you@${invite.brand_host}">
<button type="submit">Continue</button>
</form>
<form method="post" action="/onboard/${token}/decline">
<button type="submit" class="secondary">Decline the invitation</button>
</form>`,
  );
}

/** An unknown link, or (in its partner's look) an emailed link that no longer works. */
function gone(reply: FastifyReply, invite?: Invite) {
  const title = 'Invitation not found';
  const body = html`<h1>This invitation is not valid</h1><p class="muted">Ask ${invite?.partner_name ?? 'the agency that sent it'} for a new one.</p>`;
  return reply.code(404).send(invite ? invitePage(invite, title, body) : page(title, body));
}

function notPending(reply: FastifyReply, invite: Invite) {
  return reply
    .code(410)
    .send(
      invitePage(
        invite,
        'Invitation closed',
        html`<h1>This invitation is ${invite.status}</h1><p class="muted">Ask ${invite.partner_name} for a new one if you still want to connect ${invite.brand_host}.</p>`,
      ),
    );
}
