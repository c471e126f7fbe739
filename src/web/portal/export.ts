import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { searchStories } from '../../operations/stories/search-stories.js';
import { type Output, portalRoutes, run, type View } from './guard.js';
import { countPortal, takeExportSlot } from './limits.js';
import { storyPath } from './paths.js';
import { searchInput } from './story-list.js';

/** The columns of the stories export, in order. */
const COLUMNS = [
  'detected_at',
  'brand',
  'title',
  'severity',
  'status',
  'assignee',
  'advisory',
  'assessment',
  'spread',
  'last_activity_at',
  'link',
] as const;

/** Pages read from the list operation per step of the stream. */
const PAGE = 200;

/**
 * A spreadsheet opens a cell starting with = + - @ (or a tab or return) as a formula: such
 * a value (a title is anyone's text) is written with a leading apostrophe, as OWASP advises.
 */
const cell = (v: unknown) => {
  const s = v === null || v === undefined ? '' : String(v);
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
};

/**
 * The stories list as CSV, with the list's search and filters: every story the reader
 * may see that matches, newest first, streamed a page at a time through the same operation
 * the list runs, so an export of any size holds one page in memory.
 */
export function mountExports(fastify: FastifyInstance, app: AppContext) {
  const routes = portalRoutes(fastify, app, 'stories');
  routes.get('/app/stories.csv', async (req, reply, v) => {
    await countPortal(app, 'export', v.session.userId);
    const filter = searchInput(req.query);
    const day = app.clock.now().toISOString().slice(0, 10);
    reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="stories-${day}.csv"`)
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff');
    // HEAD (which Fastify answers with this route) would read every page and throw them
    // away: the headers are the whole answer.
    if (req.method === 'HEAD') return reply.send('');
    const release = await takeExportSlot(app, v.session.userId);
    let first: Output<typeof searchStories>;
    try {
      // The first page is read before answering, so a bad filter is a 4xx, not a cut stream.
      first = await run(app, v, searchStories, { ...filter, limit: PAGE });
    } catch (e) {
      release();
      throw e;
    }
    const csv = stringify({ header: true, columns: [...COLUMNS], cast: { string: cell } });
    // pipeline, not pipe: a page that fails mid-export (the brand deleted meanwhile, the
    // database gone) must end this response, and pipe() would leave the source's error
    // unhandled, which ends the process. Fastify sees the CSV stream fail and cuts the
    // response; the failure is logged there. The slot is given back when the pipeline
    // ends, however it ends: a client that goes away ends it too.
    pipeline(Readable.from(rows(app, v, filter, first)), csv, release);
    reply.raw.once('close', () => csv.destroy());
    return reply.send(csv);
  });
}

async function* rows(
  app: AppContext,
  v: View,
  filter: object,
  first: Output<typeof searchStories>,
) {
  let page = first;
  for (;;) {
    for (const s of page.stories) {
      yield {
        detected_at: s.detected_at,
        brand: s.brand,
        title: s.title,
        severity: s.severity,
        status: s.status,
        assignee: s.assignee ?? '',
        advisory: s.unlocked ? 'unlocked' : 'locked',
        assessment: s.assessment ?? '',
        spread: s.spread ?? '',
        last_activity_at: s.last_activity_at,
        link: `${app.config.baseUrl}${storyPath(s.brand, s.event_uri)}`,
      };
    }
    if (!page.next_cursor) return;
    page = await run(app, v, searchStories, {
      ...filter,
      limit: PAGE,
      cursor: page.next_cursor,
    });
  }
}
