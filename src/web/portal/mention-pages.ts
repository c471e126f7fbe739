import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { SENTIMENT_BANDS } from '../../domain/story-search.js';
import { pageError } from '../../errors.js';
import { listBrands } from '../../operations/brands/list-brands.js';
import { listMentions } from '../../operations/brands/list-mentions.js';
import { SourceType } from '../../operations/schemas.js';
import { html, safeHref } from '../html.js';
import { type Output, portalRoutes, run, type View } from './guard.js';
import { appPage, problem, when } from './layout.js';
import { storyPath } from './paths.js';
import { field, select } from './story-list.js';

const MENTIONS_PATH = '/app/mentions';
const FILTERS = ['brand', 'type', 'language', 'sentiment'] as const;

/** How a source's score reads: the search's three bands. */
const tone = (s: number | null) =>
  s === null ? '' : s > 0.2 ? 'positive' : s < -0.2 ? 'negative' : 'neutral';

/**
 * Every mention of a brand (issue 43): each source found naming it, newest first, with
 * where it came from and the sentence naming it; free on every plan, as list_mentions is.
 */
export function mountMentionPages(fastify: FastifyInstance, app: AppContext) {
  const routes = portalRoutes(fastify, app, 'stories');
  routes.get(MENTIONS_PATH, async (req, reply, v: View) => {
    const query = req.query as Record<string, string>;
    const { brands } = await run(app, v, listBrands, {});
    // Every brand read unless one is chosen.
    const brand = query.brand || undefined;
    const filters = Object.fromEntries(
      FILTERS.filter((k) => k !== 'brand' && query[k]).map((k) => [k, query[k]]),
    );
    let found: Output<typeof listMentions> | null = null;
    let refused: { status: number; text: string } | undefined;
    try {
      found = await run(app, v, listMentions, {
        ...(brand && { brand }),
        ...filters,
        ...(query.cursor && { cursor: query.cursor }),
      });
    } catch (e) {
      refused = pageError(e, reply.log);
    }
    const here = new URLSearchParams({ ...(brand && { brand }), ...filters }).toString();
    const older = found?.next_cursor
      ? `${MENTIONS_PATH}?${here}&cursor=${encodeURIComponent(found.next_cursor)}`
      : null;
    const mentions = found?.mentions ?? [];
    const page = appPage(
      v,
      'Mentions',
      html`<h1>Mentions</h1><p class="muted">Every source found naming the brand, newest first: news, posts, forums and reviews, whichever way it came.</p>${problem(refused?.text)}
${
  found?.spikes.length
    ? html`<div class="card" role="status">${found.spikes.map(
        (sp) =>
          html`<p><strong>${sp.brand}: ${sp.mentions} mentions in the last hour</strong>, against ${sp.usual} in an hour usually.</p>`,
      )}</div>`
    : ''
}
<form class="card filters" method="get" action="${MENTIONS_PATH}" role="search" aria-label="Filter mentions"><div class="row">
${select(
  'brand',
  'Brand',
  brands.map((b) => [b.brand, b.brand]),
  brand,
)}
${select(
  'type',
  'Source type',
  SourceType.options.map((t) => [t, t.replace('_', ' ')]),
  query.type,
)}
${select(
  'sentiment',
  'Sentiment',
  SENTIMENT_BANDS.map((b) => [b, b]),
  query.sentiment,
)}
${field('language', 'Language', query.language, html` maxlength="2" size="3" placeholder="en"`)}
</div><div class="row"><button type="submit">Show</button></div></form>
${
  mentions.length === 0
    ? html`<p class="card muted">${brands.length > 0 ? 'No mentions found yet.' : 'Add a brand first: its coverage is then found for it.'}</p>`
    : html`<table><thead><tr><th scope="col">Found</th><th scope="col">Source</th><th scope="col">What it says</th><th scope="col">Sentiment</th></tr></thead><tbody>
${mentions.map(
  (m) => html`<tr><td class="small">${when(m.found_at)}</td>
<td><a href="${safeHref(m.url)}" rel="noopener noreferrer">${m.publisher}</a><div class="small muted">${brand ? '' : `${m.brand} · `}${m.type}${m.language ? ` · ${m.language}` : ''}</div></td>
<td>${m.sentence ?? m.title}<div class="small">${m.event_uri ? html`<a href="${storyPath(m.brand, m.event_uri)}">Its story</a>` : html`<span class="muted">Too little reach for a story yet</span>`}</div></td>
<td>${tone(m.sentiment)}</td></tr>`,
)}</tbody></table>${older ? html`<p><a href="${older}">Older mentions</a></p>` : ''}`
}`,
    );
    return reply.code(refused?.status ?? 200).send(page);
  });
}
