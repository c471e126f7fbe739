import type { FastifyInstance } from 'fastify';
import { verifyLink } from '../auth/signed-links.js';
import type { AppContext } from '../context.js';
import { html, PAGE_HEADERS, page } from '../web/html.js';

/**
 * The page an assignment email links to: the story and, for a phase, its actions, with
 * the advisory's summary as context. The link is signed and expires; it opens only while
 * its recipient is still the assignee.
 */
export function mountActionLinks(fastify: FastifyInstance, app: AppContext) {
  fastify.get<{ Params: { token: string } }>('/action/:token', async (req, reply) => {
    reply.headers(PAGE_HEADERS);
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
<div class="card"><p>Status: <strong>${phase.status}</strong></p><h2>Actions</h2><ul>${actions}</ul></div>
<div class="card"><h2>Context: the advisory's summary</h2><ul>${summary}</ul></div>`,
    );
  });
}
