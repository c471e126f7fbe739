import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { restError } from '../../errors.js';
import { listActivity } from '../../operations/portal/activity.js';
import { getStory } from '../../operations/stories/get-story.js';
import { getStoryFromUrlJob } from '../../operations/stories/get-story-from-url-job.js';
import { portalRoutes, run, type View } from './guard.js';
import { storyPath } from './paths.js';
import { proposalCard, proposalFailure } from './proposal-card.js';
import { actorOf } from './session.js';

/**
 * The portal's one script, on every page, served from this origin (the CSP allows
 * `script-src 'self'` and nothing inline). It shows every moment (`<time>`, written in
 * UTC) relative to now within a week ("3 hours ago") and as a date after, in the time
 * zone of the reader's profile or else their browser's, the full date and zone on hover. An element with
 * `data-live="<status URL>"` shows a long operation in progress: the script asks that URL
 * every two seconds and, once the operation ends, follows it to its result (`go`), puts
 * the result in the element's place (`html`, which the server renders and escapes as it
 * renders the pages), or shows why it failed (`reason`). Without JavaScript the page says
 * the same and offers to check again. On a phone it folds the top bar behind "Menu" and
 * labels the cells of tables read as cards.
 */
export const LIVE_SCRIPT = `'use strict';
const chosen = document.querySelector('meta[name="time-zone"]')?.content || undefined;
/** The profile's zone, if this browser knows it; else the browser's own. */
const zone = (() => {
  try {
    return { timeZone: new Intl.DateTimeFormat(undefined, { timeZone: chosen }).resolvedOptions().timeZone };
  } catch {
    return {};
  }
})();
const zoned = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', ...zone });
const full = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'long', ...zone });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const STEPS = [[60, 'second'], [3600, 'minute'], [86400, 'hour'], [604800, 'day']];
/** "3 hours ago" within a week, the date after; what it was exactly on hover. */
function shown(d) {
  const seconds = (d.getTime() - Date.now()) / 1000;
  let unit = 1;
  for (const [limit, name] of STEPS) {
    if (Math.abs(seconds) < limit) {
      return name === 'second' ? relative.format(0, 'second') : relative.format(Math.round(seconds / unit), name);
    }
    unit = limit;
  }
  return zoned.format(d);
}
for (const t of document.querySelectorAll('time[datetime]')) {
  const d = new Date(t.dateTime);
  if (Number.isNaN(d.getTime())) continue;
  t.title = full.format(d);
  t.textContent = shown(d);
}
for (const o of document.querySelectorAll('[data-browser-zone]')) {
  o.textContent += ' (' + Intl.DateTimeFormat().resolvedOptions().timeZone + ')';
}
// On a phone the sections and the account fold behind "Menu"; without script they show.
document.documentElement.classList.add('js-menu');
const toggle = document.querySelector('.menu-toggle');
toggle?.addEventListener('click', () => {
  const open = document.getElementById('menu').classList.toggle('open');
  toggle.setAttribute('aria-expanded', String(open));
});
// A table read as cards on a phone names each cell after its column.
for (const table of document.querySelectorAll('main table')) {
  const heads = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
  for (const row of table.querySelectorAll('tbody tr')) {
    [...row.children].forEach((td, i) => {
      if (heads[i] && !td.hasAttribute('colspan')) td.dataset.label = heads[i];
    });
  }
}
for (const el of document.querySelectorAll('[data-live]')) follow(el);
// A list that grows as things are found (the Mentions page): new rows arrive as server-sent
// events and go on top, with a count of how many came since the page was opened.
for (const body of document.querySelectorAll('[data-stream]')) stream(body);
function stream(body) {
  let added = 0;
  const count = document.querySelector('[data-stream-count]');
  const source = new EventSource(body.dataset.stream);
  source.addEventListener('mentions', (e) => {
    const { count: n, html } = JSON.parse(e.data);
    const t = document.createElement('template');
    t.innerHTML = html;
    for (const time of t.content.querySelectorAll('time[datetime]')) {
      const d = new Date(time.dateTime);
      time.title = full.format(d);
      time.textContent = shown(d);
    }
    const heads = [...body.closest('table').querySelectorAll('thead th')].map((th) => th.textContent.trim());
    for (const row of t.content.querySelectorAll('tr')) {
      row.classList.add('new');
      [...row.children].forEach((td, i) => { if (heads[i]) td.dataset.label = heads[i]; });
    }
    body.prepend(t.content);
    body.closest('table').hidden = false;
    document.querySelector('[data-stream-empty]')?.remove();
    added += n;
    if (count) count.textContent = added === 1 ? '1 new mention' : added + ' new mentions';
  });
  // Reconnecting (a stream lasts five minutes), the browser sends the last event's id: the
  // server goes on from there, so no row comes twice.
}
async function follow(el) {
  const state = el.querySelector('[data-live-state]');
  for (let i = 0; i < 450; i++) {
    await new Promise((r) => setTimeout(r, 2000));
    let s;
    try {
      const res = await fetch(el.dataset.live, { headers: { accept: 'application/json' } });
      if (!res.ok) continue;
      s = await res.json();
    } catch {
      continue;
    }
    if (s.go) return location.assign(s.go);
    if (typeof s.html === 'string') {
      const t = document.createElement('template');
      t.innerHTML = s.html;
      el.replaceWith(t.content);
      return;
    }
    if (s.reason) {
      el.replaceChildren(Object.assign(document.createElement('p'), { textContent: s.reason }));
      el.setAttribute('role', 'alert');
      el.classList.add('error');
      return;
    }
    if (state && s.state) state.textContent = s.state;
  }
}
`;

const STATE_TEXT = {
  queued: 'Waiting for its turn…',
  running: 'Reading the article and judging it…',
} as const;

/**
 * What a job's page becomes once it ends: the story (done), or why not (failed), as the
 * job page and its status URL both tell it.
 */
export function jobOutcome(
  brand: string,
  r: { status: string; event_uri?: string; reason?: string },
): { go?: string; reason?: string; state?: string } {
  if (r.status === 'done' && r.event_uri) {
    return {
      go: storyPath(brand, r.event_uri),
    };
  }
  if (r.status === 'failed') {
    return {
      reason: `No story was made from this article: ${r.reason ?? 'it could not be read'}.`,
    };
  }
  return { state: STATE_TEXT[r.status as keyof typeof STATE_TEXT] };
}

/**
 * The script and the status URLs it reads: JSON and JavaScript, so outside the HTML pages'
 * scope (whose headers say text/html). Same session rules as the pages.
 */
export function mountLive(fastify: FastifyInstance, app: AppContext) {
  fastify.get('/app/live.js', async (_req, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff')
      .send(LIVE_SCRIPT),
  );
  const routes = portalRoutes(fastify, app, 'stories');
  /** A status URL: JSON, never cached, errors as the API answers them. */
  const status = (
    path: string,
    answer: (params: Record<string, string>, v: View) => Promise<object>,
  ) =>
    routes.get(path, async (req, reply, v) => {
      reply.header('cache-control', 'no-store');
      try {
        return await answer(req.params, v);
      } catch (e) {
        const r = restError(e, reply.log);
        return reply.code(r.status).headers(r.headers).send(r.body);
      }
    });
  // The pending proposal of a story: its ready card once the advisor answered, why not
  // when it gave up, nothing once it was applied or dismissed (by someone else meanwhile).
  status('/app/stories/:brand/:event/proposal', async ({ brand = '', event = '' }, v) => {
    const { story } = await run(app, v, getStory, { brand, event_uri: event });
    const pending = story.advisory_pending;
    if (pending?.status === 'generating') return { status: 'generating' };
    if (!pending) {
      const { entries } = await run(app, v, listActivity, { brand, event_uri: event });
      const reason = proposalFailure(entries);
      return reason ? { status: 'failed', reason } : { status: 'none', html: '' };
    }
    const path = storyPath(brand, event);
    const card = proposalCard(pending, {
      path,
      csrf: v.csrf,
      actor: actorOf(v.session),
      live: story.advisory,
    });
    return { status: 'ready', html: card.value };
  });
  status('/app/stories/from-url/:brand/:job/status', async ({ brand = '', job }, v) => {
    const r = await run(app, v, getStoryFromUrlJob, { brand, job });
    return { status: r.status, ...jobOutcome(brand, r) };
  });
}
