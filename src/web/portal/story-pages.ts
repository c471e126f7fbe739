import type { FastifyInstance } from 'fastify';
import { UNIT_PRICE_CENTS } from '../../billing/billing.js';
import type { AppContext } from '../../context.js';
import { proposalStates } from '../../domain/proposals.js';
import { pageError } from '../../errors.js';
import { addStoryContext } from '../../operations/advisory/add-story-context.js';
import { applyAdvisoryProposal } from '../../operations/advisory/apply-advisory-proposal.js';
import { dismissAdvisoryProposal } from '../../operations/advisory/dismiss-advisory-proposal.js';
import { triggerAdvisory } from '../../operations/advisory/trigger-advisory.js';
import { listBrands } from '../../operations/brands/list-brands.js';
import { deleteBrandNote } from '../../operations/notes/delete-brand-note.js';
import { postBrandNote } from '../../operations/notes/post-brand-note.js';
import type { Operation } from '../../operations/operation.js';
import { setPhaseDue } from '../../operations/portal/phase-due.js';
import {
  addGuest,
  reenableStoryShare,
  removeGuest,
  stopSharing,
} from '../../operations/portal/shares.js';
import { closeStory, reopenStory } from '../../operations/portal/story-status.js';
import { unlockOnSubscription } from '../../operations/portal/unlock-metered.js';
import { createShare } from '../../operations/shares/create-share.js';
import { createStoryFromUrl } from '../../operations/stories/create-story-from-url.js';
import { getStoryFromUrlJob } from '../../operations/stories/get-story-from-url-job.js';
import { listRecentStories } from '../../operations/stories/list-recent-stories.js';
import { listStoryRequests } from '../../operations/stories/list-story-requests.js';
import { assignPhase } from '../../operations/teamwork/assign-phase.js';
import { assignStory } from '../../operations/teamwork/assign-story.js';
import { completePhase } from '../../operations/teamwork/complete-phase.js';
import { unassignPhase } from '../../operations/teamwork/unassign-phase.js';
import { unassignStory } from '../../operations/teamwork/unassign-story.js';
import { formField } from '../forms.js';
import { html } from '../html.js';
import { type Confirmation, confirmationPage } from './confirm.js';
import { type Output, portalRoutes, run, type View } from './guard.js';
import { appPage, csrfField, notice, problem, when } from './layout.js';
import { jobOutcome } from './live.js';
import { fromUrlJobPath, storyPath } from './paths.js';
import { sevBadge, storyPage } from './story-page.js';

type Query = Record<string, string>;
const SEVERITIES = ['low', 'medium', 'high', 'critical'];
const STATUSES = ['new', 'assigned', 'in_progress', 'closed'];

const select = (name: string, label: string, options: string[], value: string | undefined) =>
  html`<div><label for="f-${name}">${label}</label><select id="f-${name}" name="${name}">
<option value="">All</option>${options.map(
    (o) => html`<option value="${o}"${o === value ? html` selected` : ''}>${o}</option>`,
  )}</select></div>`;

/** On the list, a story's waiting proposal: being prepared, or ready for review. */
const proposalNote = (state: 'generating' | 'ready' | undefined, path: string) =>
  state
    ? html`<div class="small"><a href="${path}#proposal">${state === 'ready' ? 'proposal to review' : 'proposal being prepared'}</a></div>`
    : '';

/** The list's filters as the export's query string. */
function exportQuery(query: Query): string {
  const params = new URLSearchParams();
  for (const k of ['brand', 'status', 'severity']) if (query[k]) params.set(k, query[k]);
  const q = params.toString();
  return q ? `?${q}` : '';
}

/** Stories asked for from URLs: being made (linking to their page), or why none was. */
function requestsCard(requests: Output<typeof listStoryRequests>['requests']) {
  if (requests.length === 0) return '';
  return html`<section class="card" aria-labelledby="requests"><h2 id="requests">Stories asked for by URL</h2><ul>${requests.map(
    (r) =>
      html`<li><a href="${fromUrlJobPath(r.brand, r.job)}" class="wrap">${r.url}</a> <span class="muted small">for ${r.brand}, ${when(r.requested_at)}</span> ${
        r.state === 'failed'
          ? html`<span class="badge sev-high">no story</span> <span class="small">${r.reason}</span>`
          : html`<span class="badge">${r.state === 'queued' ? 'waiting' : 'reading'}</span>`
      }</li>`,
  )}</ul></section>`;
}

/** The stories list and the story page, with every action the spec gives a team. */
export function mountStoryPages(fastify: FastifyInstance, app: AppContext) {
  const routes = portalRoutes(fastify, app, 'stories');

  async function listPage(v: View, query: Query, error?: string): Promise<string> {
    const { brands } = await run(app, v, listBrands, {});
    const filter = {
      ...(query.brand && { brand_id: query.brand }),
      ...(STATUSES.includes(query.status ?? '') && { status: query.status }),
      ...(SEVERITIES.includes(query.severity ?? '') && { severity: query.severity }),
    };
    const { stories, next_cursor } = await run(app, v, listRecentStories, {
      ...filter,
      ...(query.cursor && { cursor: query.cursor }),
    });
    const { requests } = await run(app, v, listStoryRequests, {});
    const proposalOf = await proposalStates(
      app.db,
      stories.map((s) => ({ host: s.brand_id, eventUri: s.event_uri })),
    );
    const older =
      next_cursor &&
      `/app?${new URLSearchParams({ ...(query.brand && { brand: query.brand }), ...(filter.status && { status: filter.status }), ...(filter.severity && { severity: filter.severity }), cursor: next_cursor })}`;
    return appPage(
      v,
      'Stories',
      html`<h1>Stories</h1>${notice(query.done)}${problem(error)}
<form class="row filters card" method="get" action="/app" aria-label="Filter stories">
${select(
  'brand',
  'Brand',
  brands.map((b) => b.brand),
  query.brand,
)}
${select('status', 'Status', STATUSES, query.status)}
${select('severity', 'Severity', SEVERITIES, query.severity)}
<button type="submit" class="secondary">Filter</button>
<a class="small" href="/app/stories.csv${exportQuery(query)}" download>Download these stories as CSV</a></form>
${requestsCard(requests)}
${
  stories.length === 0
    ? html`<p class="card muted">No stories${Object.keys(filter).length ? ' match these filters' : ' yet: add a brand and its sources, or a story from a URL below'}.</p>`
    : html`<table><thead><tr><th scope="col">Story</th><th scope="col">Severity</th><th scope="col">Assessment</th><th scope="col">Spread</th><th scope="col">Status</th><th scope="col">Advisory</th><th scope="col">Last activity</th></tr></thead><tbody>
${stories.map(
  (
    s,
  ) => html`<tr><td><a href="${storyPath(s.brand_id, s.event_uri)}">${s.title}</a><div class="small muted">${s.brand_id}</div></td>
<td>${sevBadge(s.severity)}</td><td>${s.assessment ?? ''}</td><td>${s.spread ?? ''}</td>
<td>${s.status.replace('_', ' ')}${s.assignee ? html`<div class="small muted">${s.assignee}</div>` : ''}</td>
<td>${s.unlocked ? 'unlocked' : html`<span class="muted">locked</span>`}${proposalNote(proposalOf(s.brand_id, s.event_uri), storyPath(s.brand_id, s.event_uri))}</td><td class="small">${when(s.last_activity_at)}</td></tr>`,
)}</tbody></table>${older ? html`<p><a href="${older}">Older stories</a></p>` : ''}`
}
<h2>Add a story from an article URL</h2>
<form class="row card" method="post" action="/app/stories/from-url">${csrfField(v.csrf)}
<div><label for="fu-brand">Brand</label><select id="fu-brand" name="brand">${brands.map(
        (b) => html`<option value="${b.brand}">${b.name} (${b.brand})</option>`,
      )}</select></div>
<div style="flex:1"><label for="fu-url">Article URL</label><input id="fu-url" name="url" type="url" required placeholder="https://news.example.org/article"></div>
<button type="submit">Add</button></form>`,
    );
  }

  routes.get('/app', async (req, _reply, v) => listPage(v, req.query));
  routes.post('/app/stories/from-url', async (req, reply, v) => {
    try {
      const r = await run(app, v, createStoryFromUrl, {
        brand: formField(req, 'brand'),
        url: formField(req, 'url'),
      });
      const brand = formField(req, 'brand');
      return reply.redirect(
        r.status === 'exists' ? storyPath(brand, r.event_uri) : fromUrlJobPath(brand, r.job),
        303,
      );
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(await listPage(v, {}, text));
    }
  });

  // A story-from-URL job while it runs, then its outcome: the story, or why there is none.
  routes.get('/app/stories/from-url/:brand/:job', async (req, reply, v) => {
    const brand = req.params.brand ?? '';
    const job = req.params.job ?? '';
    try {
      const r = await run(app, v, getStoryFromUrlJob, { brand, job });
      const outcome = jobOutcome(brand, r);
      if (outcome.go) return reply.redirect(outcome.go, 303);
      const live = fromUrlJobPath(brand, job);
      return appPage(
        v,
        'Adding a story',
        html`<h1>Adding a story from an article</h1>
${
  outcome.reason
    ? html`<div class="card error" role="alert"><p>${outcome.reason}</p></div>`
    : html`<div class="card" data-live="${live}/status" aria-live="polite">
<p><span data-live-state>${outcome.state}</span></p>
<p class="small muted">This page follows the article until its story is ready (about a minute at most), then opens it. <a href="${live}">Check again</a></p></div>`
}
<p><a href="/app">Back to the stories</a></p>`,
      );
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(await listPage(v, {}, text));
    }
  });

  const storyRoute = '/app/stories/:brand/:event';
  routes.get(storyRoute, async (req, reply, v) =>
    storyPage(app, v, req.params.brand ?? '', req.params.event ?? '', req.query, reply),
  );

  /**
   * The story page's actions: each a form posting here with `action`, run as the same
   * operation REST runs, then back to the page (or the page again with the error).
   */
  const actions: Record<
    string,
    {
      op: Operation;
      input: (f: (n: string) => string) => object;
      done: string;
      /** A destructive action's question (confirm.ts), with the fields it carries. */
      ask?: {
        fields: string[];
        question: (f: (n: string) => string, back: string) => Confirmation;
      };
    }
  > = {
    unlock: { op: triggerAdvisory, input: () => ({}), done: 'unlocked' },
    'unlock-metered': {
      op: unlockOnSubscription,
      input: () => ({}),
      done: 'unlocked',
      ask: {
        fields: [],
        question: (_f, back) => ({
          title: `Unlock this advisory for ${(UNIT_PRICE_CENTS / 100).toFixed(2)} EUR?`,
          consequence: html`No included unit is left this month, so one unit (${(UNIT_PRICE_CENTS / 100).toFixed(2)} EUR) is metered on your subscription and invoiced with the month. Nothing else is charged, and an advisory once unlocked stays unlocked for the whole team.`,
          confirm: `Unlock for ${(UNIT_PRICE_CENTS / 100).toFixed(2)} EUR`,
          back,
        }),
      },
    },
    'assign-story': {
      op: assignStory,
      input: (f) => ({ assignee: f('assignee'), invite: f('invite') === 'on' }),
      done: 'assigned',
    },
    'unassign-story': { op: unassignStory, input: () => ({}), done: 'unassigned' },
    'assign-phase': {
      op: assignPhase,
      input: (f) => ({
        phase: Number(f('phase')),
        assignee: f('assignee'),
        invite: f('invite') === 'on',
      }),
      done: 'assigned',
    },
    'unassign-phase': {
      op: unassignPhase,
      input: (f) => ({ phase: f('phase') }),
      done: 'unassigned',
    },
    'phase-due': {
      op: setPhaseDue,
      input: (f) => ({ phase: f('phase'), due: f('due') }),
      done: 'due',
    },
    'phase-done': {
      op: completePhase,
      input: (f) => ({ phase: Number(f('phase')), ...(f('comment') && { comment: f('comment') }) }),
      done: 'done',
    },
    context: { op: addStoryContext, input: (f) => ({ context: f('context') }), done: 'context' },
    apply: { op: applyAdvisoryProposal, input: () => ({}), done: 'applied' },
    dismiss: { op: dismissAdvisoryProposal, input: () => ({}), done: 'dismissed' },
    note: { op: postBrandNote, input: (f) => ({ text: f('text') }), done: 'note' },
    'delete-note': {
      op: deleteBrandNote,
      input: () => ({}),
      done: 'note-deleted',
      ask: {
        fields: [],
        question: (_f, back) => ({
          title: 'Delete the Brand Note?',
          consequence: html`The brand's official statement is taken off the story at once: off the API's and MCP's answers, and off the pages of the story's shares. A new note can be published later.`,
          confirm: 'Delete the note',
          back,
        }),
      },
    },
    close: {
      op: closeStory,
      input: (f) => ({
        reason: f('reason'),
        // The phrase goes only with "not about us", and only when asked for: the form
        // offers one filled in, which choosing another reason must not send.
        ...(f('reason') === 'not_about_us' &&
          f('teach') === 'on' &&
          f('exclude_phrase').trim() && { exclude_phrase: f('exclude_phrase') }),
      }),
      done: 'closed',
    },
    reopen: { op: reopenStory, input: () => ({}), done: 'reopened' },
    'add-guest': { op: addGuest, input: (f) => ({ email: f('email') }), done: 'guest-added' },
    'remove-guest': {
      op: removeGuest,
      input: (f) => ({ email: f('email') }),
      done: 'guest-removed',
      ask: {
        fields: ['email'],
        question: (f, back) => ({
          title: `Remove ${f('email')} from the share?`,
          consequence: html`${f('email')} can no longer open the shared story: their sign-in links stop working from their next visit. You can invite them again.`,
          confirm: 'Remove the guest',
          back,
        }),
      },
    },
    'stop-sharing': {
      op: stopSharing,
      input: () => ({}),
      done: 'share-stopped',
      ask: {
        fields: [],
        question: (_f, back) => ({
          title: 'Stop sharing this story?',
          consequence: html`Its page stops answering at once, for anyone with the link and for its guests, and it leaves the shares index. Sharing it again later makes a new link.`,
          confirm: 'Stop sharing',
          back,
        }),
      },
    },
    'reenable-share': { op: reenableStoryShare, input: () => ({}), done: 'share-reenabled' },
    share: {
      op: createShare,
      input: (f) => ({ access: f('access'), mode: f('mode'), listed: f('listed') === 'on' }),
      done: 'shared',
    },
  };

  routes.post(`${storyRoute}/:action`, async (req, reply, v) => {
    const brand = req.params.brand ?? '';
    const event = req.params.event ?? '';
    const name = req.params.action ?? '';
    const action = Object.hasOwn(actions, name) ? actions[name] : undefined;
    if (!action) return reply.code(404).send(appPage(v, 'Not found', html`<h1>Not found</h1>`));
    const f = (n: string) => formField(req, n);
    if (action.ask) {
      const back = storyPath(brand, event);
      const page = confirmationPage(
        req,
        v,
        action.op,
        action.ask.fields,
        action.ask.question(f, back),
      );
      if (page) return page;
    }
    try {
      const result = await run(app, v, action.op, { brand, event_uri: event, ...action.input(f) });
      // Past the included units an unlock goes on to checkout.
      if (action.op === triggerAdvisory || action.op === unlockOnSubscription) {
        const { checkout_url } = result as Output<typeof triggerAdvisory>;
        if (checkout_url) return reply.redirect(checkout_url, 303);
      }
      return reply.redirect(`${storyPath(brand, event)}?done=${action.done}`, 303);
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(await storyPage(app, v, brand, event, {}, reply, text));
    }
  });
}
