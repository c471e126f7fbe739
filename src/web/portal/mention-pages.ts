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
import { readSession } from './session.js';
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
  /** The open streams, each by how it ends. */
  const streams = new Set<() => void>();
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
    ? html`<p class="card muted" data-stream-empty>${brands.length > 0 ? 'No mentions found yet.' : 'Add a brand first: its coverage is then found for it.'}</p>`
    : ''
}${
  // The first page follows what is found next, in place (the portal's script).
  !query.cursor && found
    ? html`<p class="small" data-stream-count role="status" aria-live="polite"></p>`
    : ''
}<table${mentions.length === 0 ? html` hidden` : ''}><thead><tr><th scope="col">Found</th><th scope="col">Source</th><th scope="col">What it says</th><th scope="col">Sentiment</th></tr></thead><tbody${
        !query.cursor && found
          ? html` data-stream="${MENTIONS_PATH}/stream?${new URLSearchParams({ ...(brand && { brand }), ...filters, since: mentions[0]?.found_at ?? new Date().toISOString() }).toString()}"`
          : ''
      }>
${mentions.map((m) => mentionRow(m, !brand))}</tbody></table>${older ? html`<p><a href="${older}">Older mentions</a></p>` : ''}`,
    );
    return reply.code(refused?.status ?? 200).send(page);
  });

  /**
   * The mentions found after `since`, as they are found: server-sent events, each the
   * new rows rendered as the page renders them. Every instance reads the same database, so
   * whichever one serves the stream sees what any found. The session is checked at every
   * ask; a stream lasts five minutes and the browser opens the next.
   */
  routes.get(`${MENTIONS_PATH}/stream`, async (req, reply, v: View) => {
    const query = req.query as Record<string, string>;
    const brand = query.brand || undefined;
    const filters = Object.fromEntries(
      FILTERS.filter((k) => k !== 'brand' && query[k]).map((k) => [k, query[k]]),
    );
    // The most a page of the list holds: more found between two asks than this is rare.
    const input = { ...(brand && { brand }), ...filters, limit: 200 };
    // Reconnecting, the browser says the last event it had (its id is the newest found_at
    // sent); at first, the page's newest.
    const last = req.headers['last-event-id'];
    const given = typeof last === 'string' && last ? last : query.since;
    let since = given && !Number.isNaN(Date.parse(given)) ? given : '';
    try {
      // Refused as the page would be (a foreign brand, a wrong filter): no stream.
      await run(app, v, listMentions, { ...input, limit: 1 });
    } catch (e) {
      const refused = pageError(e, reply.log);
      return reply.code(refused.status).type('text/plain').send(refused.text);
    }
    reply.hijack();
    const out = reply.raw;
    out.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      // Told to wait five seconds before reconnecting after the stream ends.
    });
    out.write('retry: 5000\n\n');
    let open = true;
    const end = () => {
      if (!open) return;
      open = false;
      streams.delete(end);
      out.end();
    };
    streams.add(end);
    req.raw.on('close', end);
    const until = Date.now() + STREAM_MS;
    while (open && Date.now() < until) {
      await new Promise((r) => setTimeout(r, app.config.mentionStreamMs));
      if (!open) break;
      try {
        // Signed out, or removed from the team, meanwhile: the stream ends.
        if (!(await readSession(app, req))) break;
        const { mentions } = await run(app, v, listMentions, input);
        const fresh = mentions.filter((m) => !since || m.found_at > since);
        if (fresh.length > 0) {
          since = fresh[0]!.found_at;
          const rows = html`${fresh.map((m) => mentionRow(m, !brand))}`.value;
          out.write(
            `id: ${since}\nevent: mentions\ndata: ${JSON.stringify({ count: fresh.length, html: rows })}\n\n`,
          );
        } else {
          // A comment keeps proxies from closing a quiet stream.
          out.write(': quiet\n\n');
        }
      } catch (e) {
        reply.log.warn({ err: e }, 'mentions stream ended');
        break;
      }
    }
    end();
  });
  // A server stopping ends its streams, so it does not wait five minutes for them.
  fastify.addHook('preClose', async () => {
    for (const end of [...streams]) end();
  });
}

/** How long one stream of new mentions lasts before the browser opens the next. */
const STREAM_MS = 5 * 60_000;

/** One mention as the page shows it (and its stream sends it). */
function mentionRow(m: Output<typeof listMentions>['mentions'][number], named: boolean) {
  return html`<tr><td class="small">${when(m.found_at)}</td>
<td><a href="${safeHref(m.url)}" rel="noopener noreferrer">${m.publisher}</a>${m.author ? html`<div class="small">by ${m.author}</div>` : ''}<div class="small muted">${named ? `${m.brand} · ` : ''}${m.type}${m.language ? ` · ${m.language}` : ''}</div></td>
<td>${m.sentence ?? m.title}<div class="small">${m.event_uri ? html`<a href="${storyPath(m.brand, m.event_uri)}">Its story</a>` : html`<span class="muted">Too little reach for a story yet</span>`}</div></td>
<td>${tone(m.sentiment)}</td></tr>`;
}
