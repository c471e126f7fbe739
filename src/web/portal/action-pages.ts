import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { effectivePlan } from '../../auth/effective-plan.js';
import { verifyLink } from '../../auth/signed-links.js';
import type { AppContext } from '../../context.js';
import type { Role } from '../../db/schema.js';
import { completePhase } from '../../domain/assignments.js';
import { brandFor } from '../../policy.js';
import { formField } from '../forms.js';
import { html, page } from '../html.js';
import { forgedPage, portalError } from './guard.js';
import { csrfField } from './layout.js';
import { csrfToken, csrfValid } from './session.js';

type Req = FastifyRequest<{ Params: { token: string } }>;

/**
 * The page an assignment email links to: the story and, for a phase, its actions, with
 * the advisory's summary as context, and a form to mark the phase done. The link is
 * signed, expires, and works only while its recipient is still the assignee: it stands
 * for that person on that one phase, as a guest link stands for a guest, so an invited
 * teammate can act before they ever choose a password. Marking done runs the same
 * operation as REST and MCP, as that user.
 */
export function mountActionPages(fastify: FastifyInstance, app: AppContext) {
  fastify.get('/action/:token', async (req: Req, reply) => show(app, req, reply));
  fastify.post('/action/:token', async (req: Req, reply) => {
    if (!(await csrfValid(app, req, formField(req, '_csrf')))) {
      return reply.code(403).send(forgedPage());
    }
    const data = await verifyLink(app, 'action', req.params.token);
    if (
      !data ||
      typeof data.s !== 'string' ||
      typeof data.u !== 'string' ||
      typeof data.p !== 'number'
    ) {
      return show(app, req, reply);
    }
    const who = await app.db
      .selectFrom('stories as s')
      .innerJoin('brands as b', 'b.id', 's.brand_id')
      .innerJoin('memberships as m', (j) => j.onRef('m.account_id', '=', 'b.account_id'))
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .innerJoin('accounts as a', 'a.id', 'm.account_id')
      .select([
        's.event_uri',
        'b.host',
        'm.account_id',
        'm.role',
        'u.email',
        'a.plan',
        'a.trial_plan',
        'a.trial_ends_at',
      ])
      .where('s.id', '=', data.s)
      .where('m.user_id', '=', data.u)
      .where('m.status', 'in', ['active', 'invited'])
      .executeTakeFirst();
    if (!who) return show(app, req, reply);
    try {
      const actor = {
        kind: 'user' as const,
        userId: data.u,
        email: who.email,
        accountId: who.account_id,
        plan: effectivePlan(who, app.clock.now()),
        role: who.role as Role,
        scope: null,
      };
      // The rules of complete_phase, restricted to the link's person: a link of a phase
      // since given to someone else marks nothing.
      const comment = formField(req, 'comment').slice(0, 1000) || undefined;
      await completePhase(
        app,
        actor,
        await brandFor(app, actor, who.host),
        who.event_uri,
        data.p,
        comment,
        {
          onlyUserId: data.u,
        },
      );
    } catch (e) {
      const { status, text } = portalError(e);
      reply.code(status);
      return show(app, req, reply, text);
    }
    return show(app, req, reply, undefined, 'Marked done. Thank you.');
  });
}

async function show(app: AppContext, req: Req, reply: FastifyReply, error?: string, done?: string) {
  const gone = () =>
    reply
      .code(404)
      .send(
        page(
          'Link expired',
          html`<h1>This link is no longer valid</h1><p class="muted">It has expired or the work was reassigned. Ask your team for a new one.</p>`,
        ),
      );
  const data = await verifyLink(app, 'action', req.params.token);
  if (!data || typeof data.s !== 'string' || typeof data.u !== 'string') return gone();
  const story = await app.db
    .selectFrom('stories as s')
    .innerJoin('brands as b', 'b.id', 's.brand_id')
    .innerJoin('advisories as a', (j) =>
      j.onRef('a.story_id', '=', 's.id').on('a.kind', '=', 'live'),
    )
    .select([
      's.title',
      's.severity',
      's.assignee_user_id',
      'b.name as brand',
      'a.id as advisory_id',
      'a.executive_summary',
    ])
    .where('s.id', '=', data.s)
    .executeTakeFirst();
  if (!story) return gone();
  const summary = (JSON.parse(story.executive_summary) as { text: string }[]).map(
    (i) => html`<li>${i.text}</li>`,
  );
  if (typeof data.p !== 'number') {
    if (story.assignee_user_id !== data.u) return gone();
    return page(
      story.title,
      html`<p class="muted">${story.brand} · severity ${story.severity}</p><h1>${story.title}</h1>
<div class="card"><h2>Summary</h2><ul>${summary}</ul></div>`,
    );
  }
  const phase = await app.db
    .selectFrom('phases')
    .select(['number', 'title', 'actions', 'status', 'assignee_user_id'])
    .where('advisory_id', '=', story.advisory_id)
    .where('number', '=', data.p)
    .executeTakeFirst();
  if (!phase || phase.assignee_user_id !== data.u) return gone();
  const actions = (JSON.parse(phase.actions) as string[]).map((a) => html`<li>${a}</li>`);
  return page(
    phase.title,
    html`<p class="muted">${story.brand} · ${story.title}</p>
<h1>Phase ${phase.number}: ${phase.title}</h1>
${done ? html`<p class="card" role="status">${done}</p>` : ''}${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<div class="card"><p>Status: <strong>${phase.status}</strong></p><h2>Actions</h2><ul>${actions}</ul>
${
  phase.status === 'open'
    ? html`<form method="post" action="/action/${req.params.token}">${csrfField(await csrfToken(app, req, reply))}
<label for="comment">Comment (optional)</label><input id="comment" name="comment" type="text" maxlength="1000">
<p><button type="submit">Mark done</button></p></form>`
    : ''
}</div>
<div class="card"><h2>Context: the advisory's summary</h2><ul>${summary}</ul></div>`,
  );
}
