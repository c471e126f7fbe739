import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { verifyLink } from '../../auth/signed-links.js';
import type { AppContext } from '../../context.js';
import { actionLinkHolder, actionLinkStory } from '../../domain/action-links.js';
import { pageError } from '../../errors.js';
import { executeOperation } from '../../operations/execute.js';
import { completePhase } from '../../operations/teamwork/complete-phase.js';
import { formField } from '../forms.js';
import { html, page } from '../html.js';
import { forgedPage } from './guard.js';
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
    const holder = await actionLinkHolder(app, data.s, data.u);
    if (!holder) return show(app, req, reply);
    try {
      // complete_phase as the link's person, who marks done only their own phase: a link
      // of a phase since given to someone else marks nothing.
      const comment = formField(req, 'comment').slice(0, 1000) || undefined;
      await executeOperation(
        app,
        completePhase,
        holder.actor,
        { brand: holder.brand, event_uri: holder.eventUri, phase: data.p, comment },
        'portal',
      );
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
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
  const story = await actionLinkStory(app, data.s, typeof data.p === 'number' ? data.p : undefined);
  if (!story) return gone();
  const summary = story.summary.map((text) => html`<li>${text}</li>`);
  if (typeof data.p !== 'number') {
    if (story.assigneeUserId !== data.u) return gone();
    return page(
      story.title,
      html`<p class="muted">${story.brand} · severity ${story.severity}</p><h1>${story.title}</h1>
<div class="card"><h2>Summary</h2><ul>${summary}</ul></div>`,
    );
  }
  const { phase } = story;
  if (!phase || phase.assignee_user_id !== data.u) return gone();
  const actions = phase.actions.map((a) => html`<li>${a}</li>`);
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
