import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { proposalStates } from '../../domain/proposals.js';
import { SENTIMENT_BANDS } from '../../domain/story-search.js';
import { pageError } from '../../errors.js';
import { listBrands } from '../../operations/brands/list-brands.js';
import {
  deleteSearch,
  listViews,
  saveSearch,
  viewQuery,
} from '../../operations/portal/saved-views.js';
import { createStoryFromUrl } from '../../operations/stories/create-story-from-url.js';
import { listStoryRequests } from '../../operations/stories/list-story-requests.js';
import { searchStories } from '../../operations/stories/search-stories.js';
import { TOPICS } from '../../pipeline/taxonomy.js';
import { formField } from '../forms.js';
import { type Html, html } from '../html.js';
import { type Output, portalRoutes, run, type View } from './guard.js';
import { appPage, csrfField, notice, problem, when } from './layout.js';
import { countPortal } from './limits.js';
import { fromUrlJobPath, STORIES_PATH, storyPath } from './paths.js';
import { sevBadge } from './story-page.js';

type Query = Record<string, string>;

/** The search's fields out of a query string: search_stories' own, non-empty. */
export const searchInput = (query: Query) =>
  Object.fromEntries(new URLSearchParams(viewQuery(query)));

const option = (value: string, label: string, current: string | undefined) =>
  html`<option value="${value}"${value === (current ?? '') ? html` selected` : ''}>${label}</option>`;

export const select = (name: string, label: string, options: [string, string][], value?: string) =>
  html`<div><label for="f-${name}">${label}</label><select id="f-${name}" name="${name}">
${option('', 'All', value)}${options.map(([v, l]) => option(v, l, value))}</select></div>`;

export const field = (
  name: string,
  label: string,
  value: string | undefined,
  attrs: Html | '' = '',
) =>
  html`<div><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" value="${value ?? ''}"${attrs}></div>`;

const SEVERITY_CHOICES: [string, string][] = [
  ['high,critical', 'high and critical'],
  ['medium,high,critical', 'medium and above'],
  ['low', 'low'],
  ['medium', 'medium'],
  ['high', 'high'],
  ['critical', 'critical'],
];
const STATUS_CHOICES: [string, string][] = [
  ['new,assigned,in_progress', 'open (not closed)'],
  ['new', 'new'],
  ['assigned', 'assigned'],
  ['in_progress', 'in progress'],
  ['closed', 'closed'],
];
const MORE = ['from', 'to', 'topic', 'sentiment', 'language', 'assignee'];

/** On the list, a story's waiting proposal: being prepared, or ready for review. */
const proposalNote = (state: 'generating' | 'ready' | undefined, path: string) =>
  state
    ? html`<div class="small"><a href="${path}#proposal">${state === 'ready' ? 'proposal to review' : 'proposal being prepared'}</a></div>`
    : '';

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

/** The user's saved searches, each a link to its results, and the form saving this one. */
function viewsCard(v: View, views: Output<typeof listViews>['views'], current: string) {
  return html`<section class="card" aria-labelledby="views"><h2 id="views">Saved searches</h2>
${
  views.length === 0
    ? html`<p class="muted small">None yet: search or filter, then save it here to come back to it in one click.</p>`
    : html`<ul class="views">${views.map(
        (view) =>
          html`<li><a href="${STORIES_PATH}?${view.query}"${view.query === current ? html` aria-current="page"` : ''}>${view.name}</a>
<form class="inline" method="post" action="/app/views/${view.id}/delete">${csrfField(v.csrf)}<button type="submit" class="link small" aria-label="Delete the saved search ${view.name}">delete</button></form></li>`,
      )}</ul>`
}
${
  current
    ? html`<form class="row" method="post" action="/app/views">${csrfField(v.csrf)}<input type="hidden" name="query" value="${current}">
<div><label for="view-name">Save this search as</label><input id="view-name" name="name" required maxlength="60" placeholder="e.g. Critical this month"></div>
<button type="submit" class="secondary">Save</button></form>`
    : ''
}</section>`;
}

/** The stories list: a search over every brand the team reads, with saved searches. */
export function mountStoryList(fastify: FastifyInstance, app: AppContext) {
  const routes = portalRoutes(fastify, app, 'stories');

  /** The list; a search refused (a bad filter, 4xx) or failed (5xx) says so with its status. */
  async function listPage(
    v: View,
    query: Query,
    opts: { error?: string; log?: FastifyReply['log'] } = {},
  ): Promise<{ status: number; html: string }> {
    const { brands } = await run(app, v, listBrands, {});
    const input = searchInput(query);
    const current = viewQuery(input);
    let found: Output<typeof searchStories> = { stories: [], next_cursor: null };
    let refused: { status: number; text: string } | undefined;
    try {
      found = await run(app, v, searchStories, {
        ...input,
        ...(query.cursor && { cursor: query.cursor }),
      });
    } catch (e) {
      refused = pageError(e, opts.log);
    }
    const { stories, next_cursor } = found;
    const { requests } = await run(app, v, listStoryRequests, {});
    const { views } = await run(app, v, listViews, {});
    const proposalOf = await proposalStates(
      app.db,
      stories.map((s) => ({ host: s.brand, eventUri: s.event_uri })),
    );
    const older =
      next_cursor &&
      `${STORIES_PATH}?${current ? `${current}&` : ''}cursor=${encodeURIComponent(next_cursor)}`;
    const filtered = current !== '';
    const more = MORE.some((k) => input[k]);
    const page = appPage(
      v,
      'Stories',
      html`<h1>Stories</h1><p class="small"><a href="/app/mentions">Every mention</a>: each source found naming your brands, news, posts and reviews, newest first.</p>${notice(query.done)}${problem(opts.error ?? refused?.text)}
<form class="card filters" method="get" action="${STORIES_PATH}" role="search" aria-label="Search stories">
<div class="row"><div style="flex:1"><label for="f-q">Search</label><input id="f-q" name="q" type="search" maxlength="200" value="${input.q ?? ''}" placeholder="Words in titles, summaries and unlocked sources"></div>
${select(
  'brand',
  'Brand',
  brands.map((b) => [b.brand, b.brand]),
  input.brand,
)}
${select('severity', 'Severity', SEVERITY_CHOICES, input.severity)}
${select('status', 'Status', STATUS_CHOICES, input.status)}</div>
<details${more ? html` open` : ''}><summary>More filters</summary><div class="row">
${field('from', 'Detected from', input.from, html` type="date"`)}
${field('to', 'to', input.to, html` type="date"`)}
${select(
  'topic',
  'Topic',
  TOPICS.map((t) => [t.tag, t.tag.replaceAll('-', ' ')]),
  input.topic,
)}
${select(
  'sentiment',
  'Sentiment',
  SENTIMENT_BANDS.map((b) => [b, b]),
  input.sentiment,
)}
${field('language', 'Language', input.language, html` maxlength="2" size="3" placeholder="en"`)}
${field('assignee', 'Assignee', input.assignee, html` maxlength="254" placeholder="me, nobody or an email"`)}
</div></details>
<div class="row"><button type="submit">Search</button>${filtered ? html`<a class="small" href="${STORIES_PATH}">Clear</a>` : ''}
<a class="small" href="/app/stories.csv${current ? `?${current}` : ''}" download>Download these stories as CSV</a></div></form>
${viewsCard(v, views, current)}
${requestsCard(requests)}
${
  stories.length === 0
    ? html`<p class="card muted">No stories${filtered ? ' match this search' : ' yet: add a brand and its sources, or a story from a URL below'}.</p>`
    : html`<table><thead><tr><th scope="col">Story</th><th scope="col">Severity</th><th scope="col">Assessment</th><th scope="col">Spread</th><th scope="col">Status</th><th scope="col">Advisory</th><th scope="col">Last activity</th></tr></thead><tbody>
${stories.map(
  (
    s,
  ) => html`<tr><td><a href="${storyPath(s.brand, s.event_uri)}">${s.title}</a><div class="small muted">${s.brand}</div></td>
<td>${sevBadge(s.severity)}</td><td>${s.assessment ?? ''}</td><td>${s.spread ?? ''}</td>
<td>${s.status.replace('_', ' ')}${s.assignee ? html`<div class="small muted">${s.assignee}</div>` : ''}</td>
<td>${s.unlocked ? 'unlocked' : html`<span class="muted">locked</span>`}${proposalNote(proposalOf(s.brand, s.event_uri), storyPath(s.brand, s.event_uri))}</td><td class="small">${when(s.last_activity_at)}</td></tr>`,
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
    return { status: refused?.status ?? 200, html: page };
  }

  const failed = async (e: unknown, reply: FastifyReply, v: View, query: Query = {}) => {
    const { status, text } = pageError(e, reply.log);
    return reply.code(status).send((await listPage(v, query, { error: text })).html);
  };

  routes.get(STORIES_PATH, async (req, reply, v) => {
    await countPortal(app, 'search', v.session.userId);
    const page = await listPage(v, req.query, { log: reply.log });
    return reply.code(page.status).send(page.html);
  });
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
      return failed(e, reply, v);
    }
  });
  routes.post('/app/views', async (req, reply, v) => {
    const posted = formField(req, 'query');
    try {
      // The search as the operation saved it, the one place it is put in order.
      const { query } = await run(app, v, saveSearch, {
        name: formField(req, 'name'),
        query: posted,
      });
      return reply.redirect(`${STORIES_PATH}?${query}${query ? '&' : ''}done=view-saved`, 303);
    } catch (e) {
      return failed(e, reply, v, Object.fromEntries(new URLSearchParams(posted)));
    }
  });
  routes.post('/app/views/:id/delete', async (req, reply, v) => {
    try {
      await run(app, v, deleteSearch, { id: req.params.id ?? '' });
      return reply.redirect(`${STORIES_PATH}?done=view-deleted`, 303);
    } catch (e) {
      return failed(e, reply, v);
    }
  });

  return { listPage };
}
