import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import type { StoryStatus } from '../../db/schema.js';
import { pageError } from '../../errors.js';
import { OVERVIEW_PERIODS, overview } from '../../operations/portal/overview.js';
import { type Html, html } from '../html.js';
import { chartDefs, rankList, sentimentChart, volumeChart } from './charts.js';
import { type Output, portalRoutes, run } from './guard.js';
import { appPage, notice, problemPage, when } from './layout.js';
import { STORIES_PATH, storyPath } from './paths.js';
import { dueBadge, sevBadge } from './story-page.js';

type Overview = Output<typeof overview>;

const STATUS_LABELS: [StoryStatus, string][] = [
  ['new', 'New'],
  ['assigned', 'Assigned'],
  ['in_progress', 'In progress'],
  ['closed', 'Closed'],
];

/** The stories list searched for something, as a link. */
const storiesLink = (params: Record<string, string | null>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  return `${STORIES_PATH}?${q}`;
};

/** A change against the previous period, in words and arrows rather than colour. */
function change(now: number, before: number): Html {
  if (before === 0) return now === 0 ? html`<span class="muted">none</span>` : html`new`;
  const pct = Math.round(((now - before) / before) * 100);
  if (pct === 0) return html`→ same`;
  return pct > 0 ? html`↑ ${pct}% more` : html`↓ ${-pct}% fewer`;
}

function filterForm(o: Overview): Html {
  return html`<form class="row card filters" method="get" action="/app" aria-label="Choose brands and period">
<div><label for="o-brand">Brand</label><select id="o-brand" name="brand"><option value="">All brands</option>${o.brands.map(
    (b) =>
      html`<option value="${b.brand}"${b.brand === o.brand ? html` selected` : ''}>${b.name} (${b.brand})</option>`,
  )}</select></div>
<div><label for="o-days">Period</label><select id="o-days" name="days">${OVERVIEW_PERIODS.map(
    (d) => html`<option value="${d}"${d === o.days ? html` selected` : ''}>last ${d} days</option>`,
  )}</select></div>
<button type="submit" class="secondary">Show</button></form>`;
}

function statusCard(o: Overview): Html {
  const open = o.statuses.new + o.statuses.assigned + o.statuses.in_progress;
  return html`<section class="card" aria-labelledby="open-h"><h2 id="open-h">Stories now</h2>
<dl class="stats"><div><dt>Open</dt><dd><a href="${storiesLink({ brand: o.brand, status: 'new,assigned,in_progress' })}">${open}</a></dd></div>${STATUS_LABELS.map(
    ([s, label]) =>
      html`<div><dt>${label}</dt><dd><a href="${storiesLink({ brand: o.brand, status: s })}">${o.statuses[s]}</a></dd></div>`,
  )}</dl></section>`;
}

function seriousCard(o: Overview): Html {
  return html`<section class="card" aria-labelledby="serious-h"><h2 id="serious-h">Newest high and critical stories</h2>${
    o.serious.length === 0
      ? html`<p class="muted">None: no story is high or critical.</p>`
      : html`<ul>${o.serious.map(
          (s) =>
            html`<li>${sevBadge(s.severity)} <a href="${storyPath(s.host, s.event_uri)}">${s.title}</a> <span class="small muted">${s.host}, ${when(s.detected_at)}, ${s.status.replace('_', ' ')}</span></li>`,
        )}</ul><p class="small"><a href="${storiesLink({ brand: o.brand, severity: 'high,critical' })}">All high and critical stories</a></p>`
  }</section>`;
}

function mineCard(o: Overview): Html {
  const overdue = o.mine.filter((p) => p.due_on && p.due_on < o.today).length;
  return html`<section class="card" aria-labelledby="mine-h"><h2 id="mine-h">Assigned to me</h2>${
    o.mine.length === 0
      ? html`<p class="muted">No open phase is assigned to you.</p>`
      : html`${overdue ? html`<p><span class="badge sev-critical">${overdue} overdue</span></p>` : ''}<ul>${o.mine.map(
          (p) =>
            html`<li><a href="${storyPath(p.host, p.event_uri)}">Phase ${p.number}: ${p.title}</a>${dueBadge('open', p.due_on ?? undefined, o.today)} <span class="small muted">${p.story}</span></li>`,
        )}</ul>`
  }</section>`;
}

function portfolioTable(o: Overview): Html | '' {
  if (!o.portfolio) return '';
  return html`<section aria-labelledby="portfolio-h"><h2 id="portfolio-h">Brands</h2>
<div class="table-wrap"><table><thead><tr><th scope="col">Brand</th><th scope="col">Mentions</th><th scope="col">Against the ${o.days} days before</th><th scope="col">High and critical</th><th scope="col">Sentiment</th><th scope="col">Open stories</th></tr></thead><tbody>${o.portfolio.map(
    (b) =>
      html`<tr><th scope="row"><a href="/app?brand=${encodeURIComponent(b.host)}&amp;days=${o.days}">${b.name}</a><div class="small muted">${b.host}</div></th>
<td data-label="Mentions">${b.mentions}</td><td data-label="Against before">${change(b.mentions, b.previous)}</td>
<td data-label="High and critical">${b.serious}</td><td data-label="Sentiment">${b.sentiment ?? html`<span class="muted">not scored</span>`}</td>
<td data-label="Open stories"><a href="${storiesLink({ brand: b.host, status: 'new,assigned,in_progress' })}">${b.open}</a></td></tr>`,
  )}</tbody></table></div></section>`;
}

/** The portal's home: coverage over time and the work at hand (docs/portal.md, "Overview"). */
export function mountOverviewPage(fastify: FastifyInstance, app: AppContext) {
  const routes = portalRoutes(fastify, app, 'overview');
  routes.get('/app', async (req, reply, v) => {
    let o: Overview;
    try {
      o = await run(app, v, overview, {
        ...(req.query.brand && { brand: req.query.brand }),
        ...(req.query.days && { days: req.query.days }),
      });
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      const page = { title: 'Overview', heading: 'Overview' };
      const back = { href: '/app', label: 'Back to the overview' };
      return reply.code(status).send(problemPage(v, page, text, back));
    }
    const scope = o.brand ?? (o.brands.length === 1 ? o.brands[0]!.brand : 'all brands');
    return appPage(
      v,
      'Overview',
      html`<h1>Overview</h1>${notice(req.query.done)}${chartDefs}
${filterForm(o)}
<p class="muted small">${scope}, ${o.first} to ${o.today} (UTC days). Each mention is an article stored for a story, counted under the story's severity when it came in.</p>
<div class="grid">${statusCard(o)}${mineCard(o)}</div>
<section class="card" aria-labelledby="volume-h"><h2 id="volume-h" class="visually-hidden">Coverage</h2>${volumeChart(o.volume)}</section>
<section class="card">${sentimentChart(o.volume)}</section>
<div class="grid">
<section class="card" aria-labelledby="pub-h"><h2 id="pub-h">Top publishers</h2>${o.publishers.length ? rankList(o.publishers, (p) => p) : html`<p class="muted">No mention in this period.</p>`}</section>
<section class="card" aria-labelledby="type-h"><h2 id="type-h">Mentions by source type</h2>${o.types.length ? rankList(o.types, (t) => t.replace('_', ' ')) : html`<p class="muted">No mention in this period.</p>`}<p class="small"><a href="/app/mentions">Every mention</a></p></section>
<section class="card" aria-labelledby="topic-h"><h2 id="topic-h">Top topics</h2>${o.topics.length ? rankList(o.topics, (t) => t.replaceAll('-', ' ')) : html`<p class="muted">No topic in this period.</p>`}</section>
</div>
${seriousCard(o)}
${portfolioTable(o)}`,
    );
  });
}
