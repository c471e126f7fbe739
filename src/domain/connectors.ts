import { sql, type Updateable } from 'kysely';
import {
  baseOf,
  brandQuery,
  type ConnectorId,
  type ConnectorItem,
  isPolled,
  type PolledId,
} from '../connectors/connector.js';
import { CONNECTORS, connectorName } from '../connectors/index.js';
import { type AppContext, inTransaction } from '../context.js';
import type { Db } from '../db/database.js';
import { decode, encode } from '../db/json-columns.js';
import type { DB } from '../db/schema.js';
import { AppError, invalid } from '../errors.js';
import { newId } from '../ids.js';
import { CONNECTOR_POLL } from '../jobs/kinds.js';
import { FetchRefused, safeFetch } from '../net/safe-fetch.js';
import { decodeBody } from '../pipeline/charset.js';
import { writeAudit } from './audit.js';
import { brandTermsOf } from './brands.js';
import { rowId, seedConnectors } from './connector-rows.js';
import { ingestLink } from './feeds.js';
import { type BrandRow, ingestArticle } from './ingest-article.js';
import { announceSpikes } from './mention-spikes.js';
import { claimPoll, type ItemOutcome, type PollOutcome, readBatch } from './polls.js';
import { articleOf, holdPost, unhold } from './quiet-posts.js';

/**
 * Coverage the service finds itself (docs/sources.md, issue 43): every brand gets the
 * configured connectors, on, the moment it is added; the team can switch each off. Each
 * (brand, connector) is polled like a feed: claimed by moving its next poll forward in
 * the transaction that enqueues the job, so one process asks; what each item became is
 * remembered, so nothing is read twice. Each connector's requests are paced across all
 * processes: one process a minute takes the connector's window (a compare-and-set on
 * `connector_backoff`) and claims at most its rate, spread over the minute; a 429's
 * Retry-After moves the window, and a poll already queued waits for it too.
 */

/** Items read per poll; the rest wait for the next one. */
const ITEMS_PER_POLL = 25;
/** At the first poll, what the service held before monitoring began is history: these last. */
const FIRST_POLL_ITEMS = 10;
/** A post makes a story of its own only with this much reach (points, comments, likes). */
export const POST_REACH = 10;
/** An item published longer ago than this is not read (retention forgets what was read at 60 days). */
const STALE_MS = 30 * 86_400_000;
/** A connector's window: the requests claimed at once are spread over it. */
const WINDOW_MS = 60_000;
/**
 * A window ends this much early, so that the process that took it, ticking once a minute,
 * finds it open at its next tick (its clock read a little later than the last tick's, a
 * minute on): without it a lone process would claim every other minute.
 */
const WINDOW_SLACK_MS = 2_000;
/** Why a connector is held: the minute's window, or its service's 429. */
const WINDOW = 'window';
const ACTOR = 'monitor';

/**
 * Brands added by any path (an agency's client onboarding, an older release) that lack a
 * configured connector get it, in one statement per connector; the scheduler runs this
 * at start and every ten minutes.
 */
export async function seedMissing(app: AppContext): Promise<void> {
  const at = app.clock.now().toISOString();
  for (const connector of app.config.connectors) {
    await app.db
      .insertInto('brand_connectors')
      .columns(['id', 'brand_id', 'connector', 'next_poll_at', 'created_at'])
      .expression((eb) =>
        eb
          .selectFrom('brands as b')
          .select([
            sql<string>`b.id || ${`.${connector}`}`.as('id'),
            'b.id as brand_id',
            sql<string>`cast(${connector} as text)`.as('connector'),
            sql<string>`cast(${at} as text)`.as('next_poll_at'),
            sql<string>`cast(${at} as text)`.as('created_at'),
          ])
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('brand_connectors as c')
                  .select('c.id')
                  .whereRef('c.brand_id', '=', 'b.id')
                  .where('c.connector', '=', connector),
              ),
            ),
          ),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

/**
 * A connector's pace: how many polls one window claims, and how long the window is. Its
 * rate in CONNECTOR_RATES, else its service's limit within CONNECTOR_REQUESTS_PER_MINUTE:
 * a minute's worth a minute, or, for a quota below one a minute (YouTube's searches), one
 * poll in a longer window.
 */
function paceOf(app: AppContext, connector: PolledId): { polls: number; windowMs: number } {
  const rate =
    app.config.connectorRates[connector] ??
    Math.min(app.config.connectorRequestsPerMinute, CONNECTORS[connector].perMinute);
  return rate >= 1
    ? { polls: Math.floor(rate), windowMs: WINDOW_MS }
    : { polls: 1, windowMs: Math.ceil(WINDOW_MS / rate) };
}

/** How many requests a row's poll makes: one per target, or per configured instance. */
function requestsOf(app: AppContext, connector: PolledId, targets: string | null): number {
  const asks = CONNECTORS[connector].request({
    base: baseOf(app.config, connector),
    query: { names: ['x'], exclude: [] },
    cursor: null,
    now: new Date(0),
    targets: targets ? decode('brand_connectors.targets', targets) : [],
    key: '',
  });
  return Math.max(1, asks.length);
}

/**
 * Takes the connector's window for this process: true when no process holds it (its last
 * window ended, and no 429 asks to wait). One process a window wins, however many run.
 */
async function takeWindow(
  app: AppContext,
  connector: PolledId,
  at: string,
  windowMs: number,
): Promise<boolean> {
  const until = new Date(Date.parse(at) + windowMs - WINDOW_SLACK_MS).toISOString();
  await app.db
    .insertInto('connector_backoff')
    .values({ connector, until: at, reason: WINDOW })
    .onConflict((oc) => oc.doNothing())
    .execute();
  const taken = await app.db
    .updateTable('connector_backoff')
    .set({ until, reason: WINDOW })
    .where('connector', '=', connector)
    .where('until', '<=', at)
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}

/**
 * Enqueues the polls due within the connector's window (the next minute), each at its due
 * time and within the connector's rate; answers how many this process claimed.
 */
export async function scheduleDueConnectors(app: AppContext): Promise<number> {
  const now = app.clock.now();
  const at = now.toISOString();
  let claimed = 0;
  for (const connector of app.config.connectors.filter(isPolled)) {
    const { polls, windowMs } = paceOf(app, connector);
    if (!(await takeWindow(app, connector, at, windowMs))) continue;
    // The rows due before the window ends, each polled at its time.
    const horizon = new Date(now.getTime() + windowMs).toISOString();
    const due = await app.db
      .selectFrom('brand_connectors as c')
      // A row whose brand is gone (deleted mid-seed) is never claimed.
      .innerJoin('brands as b', 'b.id', 'c.brand_id')
      .select(['c.id', 'c.next_poll_at', 'c.targets'])
      .where('c.connector', '=', connector)
      .where('c.enabled', '=', 1)
      .where((eb) => eb.or([eb('c.next_poll_at', 'is', null), eb('c.next_poll_at', '<=', horizon)]))
      // A connector that reads named things waits, idle, until the team names some.
      .$if(CONNECTORS[connector].targets !== undefined, (q) => q.where('c.targets', 'is not', null))
      .orderBy('c.next_poll_at')
      .limit(polls)
      .execute();
    // Each at its due time (those overdue now), never two closer than the service's rate
    // allows: a steady pace for the service, and no burst for the job queue. Its next poll
    // is an interval after this one runs.
    // The rate counts requests: a poll of three apps' reviews is three.
    const spacing = windowMs / polls;
    let budget = polls;
    let last = Number.NEGATIVE_INFINITY;
    for (const row of due) {
      const requests = requestsOf(app, connector, row.targets);
      if (requests > budget) break;
      const dueAt = row.next_poll_at ? Date.parse(row.next_poll_at) : now.getTime();
      const runMs = Math.max(now.getTime(), dueAt, last);
      const runAt = new Date(runMs).toISOString();
      const next = new Date(runMs + app.config.connectorPollMs).toISOString();
      const job = { kind: CONNECTOR_POLL, payload: { source: row.id }, now: at, runAt };
      if (await claimPoll(app, 'brand_connectors', row, next, job)) {
        last = runMs + spacing * requests;
        budget -= requests;
        claimed++;
      }
    }
  }
  return claimed;
}

/**
 * Seeds missing rows, schedules due connectors and tells of mention spikes
 * (mention-spikes.ts) now, then every minute (or CONNECTOR_POLL_MS, if shorter); seeds
 * again every ten runs.
 */
export function startConnectorScheduler(app: AppContext): () => void {
  if (app.config.connectors.length === 0) return () => {};
  let runs = 0;
  const run = async () => {
    if (runs++ % 10 === 0) await seedMissing(app);
    await scheduleDueConnectors(app);
    await announceSpikes(app);
  };
  const tick = () => {
    run().catch((err) => app.log?.warn({ err }, 'connector scheduling failed'));
  };
  tick();
  const timer = setInterval(tick, Math.min(60_000, app.config.connectorPollMs));
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The poll job: asks the connector's service for the brand's coverage since the cursor
 * and reads each new item into the pipeline. What goes wrong with the service is recorded
 * on the row (last_status, last_error, failing_since) and the job ends; only an outage of
 * our own throws, for a retry.
 */
export async function pollConnectorJob(
  app: AppContext,
  payload: { source: string },
): Promise<PollOutcome> {
  const row = await app.db
    .selectFrom('brand_connectors as c')
    .innerJoin('brands as b', 'b.id', 'c.brand_id')
    .select(['c.id', 'c.connector', 'c.enabled', 'c.cursor', 'c.first_read_at', 'c.targets'])
    .select(['c.failing_since', 'b.id as brand_id', 'b.account_id', 'b.host', 'b.name'])
    .select(['b.aliases', 'b.match_policy'])
    .where('c.id', '=', payload.source)
    .executeTakeFirst();
  if (row?.enabled !== 1) return { status: 'switched off' };
  const id = row.connector as ConnectorId;
  const connector = isPolled(id) ? CONNECTORS[id] : undefined;
  if (!connector || !app.config.connectors.includes(connector.id)) {
    return { status: 'not configured' };
  }
  const now = app.clock.now();
  const at = now.toISOString();
  // Queued before its service asked to wait (429): it waits too, and is polled after.
  const held = await app.db
    .selectFrom('connector_backoff')
    .select('until')
    .where('connector', '=', connector.id)
    .where('reason', '!=', WINDOW)
    .where('until', '>', at)
    .executeTakeFirst();
  if (held) {
    await app.db
      .updateTable('brand_connectors')
      .set({ next_poll_at: held.until })
      .where('id', '=', row.id)
      .execute();
    return { status: 'waiting' };
  }
  const record = (fields: { last_status: string; last_error?: string | null }) =>
    app.db
      .updateTable('brand_connectors')
      .set({
        last_polled_at: at,
        last_error: null,
        ...fields,
        // Since when it has been failing, for `brs status`; cleared by a poll that works.
        failing_since: fields.last_error ? (row.failing_since ?? at) : null,
      })
      .where('id', '=', row.id)
      .execute();

  const brand: BrandRow = {
    id: row.brand_id,
    account_id: row.account_id,
    host: row.host,
    name: row.name,
    aliases: row.aliases,
    match_policy: row.match_policy,
  };
  const query = brandQuery(brandTermsOf(brand));
  const targets = row.targets ? decode('brand_connectors.targets', row.targets) : [];
  if (connector.targets ? targets.length === 0 : query.names.length === 0) {
    // Nothing to ask: for a search, an error the team should see; for a connector that
    // reads named things, the team has named none (switched since the poll was claimed).
    const error = connector.targets ? null : 'the brand has no name of two letters or more';
    await record({ last_status: 'nothing to search', last_error: error });
    return { status: 'nothing to search' };
  }
  const urls = connector.request({
    base: baseOf(app.config, connector.id),
    query,
    cursor: row.cursor,
    now,
    targets,
    key: app.config.connectorKeys[connector.id] ?? '',
  });
  const headers = { accept: connector.accept };
  // A key goes to the service's own address only, never after a redirect elsewhere.
  const credentials = connector.authorize?.(app.config.connectorKeys[connector.id] ?? '');
  // Each request in turn (an app's reviews, then the next app's). One that fails is
  // recorded and the others are read: an app taken off the store, or an instance that
  // closes its timelines, does not stop the rest. A 429 ends the poll (the service's limit).
  const items: ConnectorItem[] = [];
  const failed: { status: string; error: string }[] = [];
  let cursor = row.cursor;
  for (const [i, url] of urls.entries()) {
    // Which request failed, in words with no key in them: the app, or the instance.
    const which = urls.length > 1 ? ` for ${targets[i] ?? new URL(url).host}` : '';
    let res: Awaited<ReturnType<typeof safeFetch>>;
    try {
      res = await safeFetch(app.config, url, { headers, ...(credentials && { credentials }) });
    } catch (e) {
      if (!(e instanceof FetchRefused)) throw e;
      failed.push({ status: 'unreachable', error: `${e.message}${which}` });
      continue;
    }
    if (res.status === 429) {
      // The service's own limit: every brand's poll of this connector waits.
      const until = new Date(now.getTime() + retryAfterMs(res.headers.get('retry-after'), now));
      await holdConnector(app.db, connector.id, until.toISOString(), 'HTTP 429');
      await record({
        last_status: 'HTTP 429',
        last_error: `${connector.name} asked to wait until ${until.toISOString()}`,
      });
      return { status: 'HTTP 429' };
    }
    if (res.status !== 200) {
      failed.push({
        status: `HTTP ${res.status}`,
        error: `${connector.name} answered HTTP ${res.status}${which}`,
      });
      continue;
    }
    try {
      // JSON is UTF-8 by definition; a feed says its encoding as XML does.
      const text = connector.accept.includes('json')
        ? res.body.toString('utf8')
        : decodeBody(res.body, res.headers.get('content-type'), 'xml').text;
      // Read against the address asked (a redirect does not change which instance it is).
      const page = connector.parse(text, url, now, cursor);
      items.push(...page.items);
      cursor = page.cursor ?? cursor;
    } catch (e) {
      failed.push({ status: 'unreadable', error: `${(e as Error).message}${which}` });
    }
  }
  if (failed.length === urls.length) {
    await record({
      last_status: failed[0]!.status,
      last_error: failed.map((f) => f.error).join('; '),
    });
    return { status: failed[0]!.status };
  }
  const partly = failed.length > 0 ? failed.map((f) => f.error).join('; ') : null;
  // Newest first across the answers, as each answer is.
  if (urls.length > 1) {
    items.sort((x, y) => (y.published_at ?? '').localeCompare(x.published_at ?? ''));
  }
  const page = { items, cursor: cursor === row.cursor ? null : cursor };

  // An item a month old is not news, whatever the service lists: and what was remembered
  // is forgotten after 60 days (retention), so a feed that keeps old reviews listed would
  // otherwise hand them over again as new.
  const recent = page.items.filter(
    (i) => !i.published_at || !(Date.parse(i.published_at) < now.getTime() - STALE_MS),
  );
  const fresh = await unseen(app.db, row.id, row.brand_id, recent);
  let queue = [...fresh].reverse();
  // The first answer read (not the first poll: one that failed read nothing) holds the
  // service's backlog, which is history.
  if (row.first_read_at === null && queue.length > FIRST_POLL_ITEMS) {
    // What the service held before monitoring began is not news: remembered unread.
    for (const item of queue.slice(0, queue.length - FIRST_POLL_ITEMS)) {
      await remember(app.db, row.id, item, { outcome: 'skipped: before monitoring began' }, at);
    }
    queue = queue.slice(-FIRST_POLL_ITEMS);
  }
  const batch = queue.slice(0, ITEMS_PER_POLL);
  const { counts, retry } = await readBatch(
    batch,
    (item) => ingestItem(app, brand, item),
    (item, outcome) => remember(app.db, row.id, item, outcome, at),
  );
  await app.db
    .updateTable('brand_connectors')
    .set((eb) => ({
      last_polled_at: at,
      // Some of its requests failed: said, and failing since then, the others read.
      last_error: partly,
      failing_since: partly ? (row.failing_since ?? at) : null,
      last_status: `200: ${batch.length} new item${batch.length === 1 ? '' : 's'}${retry ? `, ${retry} to retry` : ''}${partly ? `, ${failed.length} of ${urls.length} requests failed` : ''}`,
      items_found: eb('items_found', '+', batch.length - retry),
      // Set once, at the first answer read; left alone after, so that a reset made while
      // this poll ran (a target named) is not undone.
      ...(row.first_read_at === null && {
        first_read_at: eb.fn.coalesce('first_read_at', eb.val(at)),
      }),
      // The cursor moves only once every item up to it was read.
      ...(batch.length === queue.length && retry === 0 && page.cursor && { cursor: page.cursor }),
    }))
    .where('id', '=', row.id)
    .execute();
  return { status: '200', items: batch.length, ...counts };
}

/**
 * The items not seen before: neither by this connector for the brand, nor by another
 * connector or a feed as an article the brand's stories already hold (the same article
 * found by Google News and GDELT is read once).
 */
async function unseen(
  db: Db,
  rowId: string,
  brandId: string,
  items: readonly ConnectorItem[],
): Promise<ConnectorItem[]> {
  if (items.length === 0) return [];
  const keys = new Set(
    (
      await db
        .selectFrom('connector_items')
        .select('item_key')
        .where('brand_connector_id', '=', rowId)
        .where(
          'item_key',
          'in',
          items.map((i) => i.key),
        )
        .execute()
    ).map((r) => r.item_key),
  );
  const held = new Set(
    (
      await db
        .selectFrom('articles as a')
        .innerJoin('stories as s', 's.id', 'a.story_id')
        .select('a.url')
        .where(
          'a.url',
          'in',
          items.map((i) => i.url),
        )
        .where('s.brand_id', '=', brandId)
        .execute()
    ).map((r) => r.url),
  );
  // A headline read as it is (Google News') is the article already held under that title.
  const titles = items.filter((i) => i.given && i.title).map((i) => i.title!);
  const heldTitles = new Set(
    titles.length === 0
      ? []
      : (
          await db
            .selectFrom('articles as a')
            .innerJoin('stories as s', 's.id', 'a.story_id')
            .select('a.title')
            .where('s.brand_id', '=', brandId)
            .where('a.title', 'in', titles)
            .execute()
        ).map((r) => r.title),
  );
  const out: ConnectorItem[] = [];
  const urls = new Set<string>();
  for (const item of items) {
    if (keys.has(item.key) || held.has(item.url) || urls.has(item.url)) continue;
    if (item.given && item.title && heldTitles.has(item.title)) continue;
    urls.add(item.url);
    out.push(item);
  }
  return out;
}

/** One item into the pipeline: a link read from its page; a post or a headline as it is. */
export async function ingestItem(
  app: AppContext,
  brand: BrandRow,
  item: ConnectorItem,
): Promise<ItemOutcome> {
  const { given } = item;
  if (!given) return ingestLink(app, brand, item, ACTOR);
  const post = { ...item, given };
  // A post with little reach makes no story alone, nor joins the one it links: joining by
  // link with no reach at all would let a dozen throwaway accounts make a story
  // "widespread" (a review's finding). It is kept as a mention, and several people
  // posting about one thing make a story together (quiet-posts.ts). A post with reach
  // linking coverage a story holds joins that story, its spread.
  if (given.reach !== null && given.reach < POST_REACH) return holdPost(app, brand, post, ACTOR);
  try {
    const r = await ingestArticle(
      app,
      brand,
      articleOf(post, brand, app.clock.now()),
      ACTOR,
      given.links ?? [],
    );
    // Held while it had little reach (Bluesky's, as reactions came), it is a source now.
    await unhold(app, brand.id, item.url);
    return { outcome: r.status, event_uri: r.event_uri };
  } catch (e) {
    if (e instanceof AppError && e.code === 'invalid') {
      return { outcome: `skipped: ${e.message.replace(/^article: /, '')}` };
    }
    throw e;
  }
}

/** What became of an item, kept so that it is not read again. */
export async function remember(
  db: Db,
  rowId: string,
  item: ConnectorItem,
  outcome: { outcome: string; event_uri?: string },
  at: string,
) {
  await db
    .insertInto('connector_items')
    .values({
      id: newId('cit'),
      brand_connector_id: rowId,
      item_key: item.key,
      url: item.url,
      outcome: outcome.outcome,
      event_uri: outcome.event_uri ?? null,
      created_at: at,
    })
    .onConflict((oc) => oc.columns(['brand_connector_id', 'item_key']).doNothing())
    .execute();
}

/** Every brand's poll of a connector waits until `until` (the later of two holds wins). */
async function holdConnector(db: Db, connector: string, until: string, reason: string) {
  await db
    .insertInto('connector_backoff')
    .values({ connector, until, reason })
    .onConflict((oc) =>
      oc.column('connector').doUpdateSet((eb) => ({
        until: eb
          .case()
          .when('connector_backoff.until', '<', until)
          .then(until)
          .else(eb.ref('connector_backoff.until'))
          .end(),
        reason,
      })),
    )
    .execute();
}

/** Retry-After in seconds or as an HTTP date; a minute when absent or unreadable, an hour at most. */
export function retryAfterMs(header: string | null, now: Date): number {
  const MINUTE = 60_000;
  if (!header) return MINUTE;
  const seconds = Number(header.trim());
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now.getTime();
  if (!Number.isFinite(ms) || ms <= 0) return MINUTE;
  return Math.min(ms, 60 * MINUTE);
}

export interface ConnectorStatus {
  connector: ConnectorId;
  name: string;
  enabled: boolean;
  last_polled_at: string | null;
  last_status: string | null;
  last_error: string | null;
  failing_since: string | null;
  items_found: number;
  next_poll_at: string | null;
  /**
   * For a connector that reads named things: what one is ("App Store app id"), an
   * example, and those the team set (none: it waits); absent for a search.
   */
  targets?: { what: string; example: string; set: string[] };
}

/** A brand's connectors and how each is doing (`brs source list`, the brand page). */
export async function listConnectors(app: AppContext, brandId: string): Promise<ConnectorStatus[]> {
  const rows = await app.db
    .selectFrom('brand_connectors')
    .selectAll()
    .where('brand_id', '=', brandId)
    .orderBy('connector')
    .execute();
  // A connector taken out of CONNECTORS is not polled, so not shown.
  return rows
    .filter((r) => (app.config.connectors as readonly string[]).includes(r.connector))
    .map((r) => ({
      connector: r.connector as ConnectorId,
      name: connectorName(r.connector as ConnectorId),
      enabled: r.enabled === 1,
      last_polled_at: r.last_polled_at,
      last_status: r.last_status,
      last_error: r.last_error,
      failing_since: r.failing_since,
      items_found: r.items_found,
      // Bluesky is streamed, not polled: it has no next poll.
      next_poll_at: r.enabled === 1 && isPolled(r.connector as ConnectorId) ? r.next_poll_at : null,
      ...targetsOf(r.connector as ConnectorId, r.targets),
    }));
}

function targetsOf(connector: ConnectorId, raw: string | null) {
  const reads = isPolled(connector) ? CONNECTORS[connector].targets : undefined;
  if (!reads) return {};
  const set = raw ? decode('brand_connectors.targets', raw) : [];
  return { targets: { what: reads.what, example: reads.example, set } };
}

/** At most this many targets per connector and brand (each is a request per poll). */
const MAX_TARGETS = 10;

/**
 * Sets what a connector that reads named things reads for the brand (its apps, its
 * channels): ids in the connector's form, space or comma separated; none leaves it idle.
 * A target newly named starts as a first poll does: its backlog is history.
 */
export async function setConnectorTargets(
  app: AppContext,
  brand: { id: string; account_id: string },
  connector: string,
  given: string,
  actor: string,
): Promise<ConnectorStatus> {
  const known = (app.config.connectors as readonly string[]).includes(connector);
  const id = connector as ConnectorId;
  const reads = known && isPolled(id) ? CONNECTORS[id].targets : undefined;
  if (!reads) {
    const targeted = app.config.connectors.filter((c) => isPolled(c) && CONNECTORS[c].targets);
    throw invalid(
      `connector: must be one that reads named things: ${targeted.join(', ') || 'none is configured'}`,
    );
  }
  const targets = [...new Set(given.split(/[\s,]+/).filter(Boolean))];
  const wrong = targets.find((t) => !reads.pattern.test(t));
  if (wrong !== undefined) {
    throw invalid(
      `targets: "${wrong.slice(0, 80)}" is not ${/^[aeiou]/i.test(reads.what) ? 'an' : 'a'} ${reads.what} (like ${reads.example})`,
    );
  }
  if (targets.length > MAX_TARGETS) {
    throw invalid(`targets: at most ${MAX_TARGETS} for one connector`);
  }
  return changeConnector(app, brand, id, actor, {
    set: (at) => ({
      targets: targets.length > 0 ? encode('brand_connectors.targets', targets) : null,
      next_poll_at: at,
      first_read_at: null,
      last_status: null,
      last_error: null,
      failing_since: null,
    }),
    action: 'connector.targets_set',
    details: { connector, targets },
  });
}

/** One change to a brand's connector, audited, in one transaction; answers how it stands. */
async function changeConnector(
  app: AppContext,
  brand: { id: string; account_id: string },
  connector: ConnectorId,
  actor: string,
  change: {
    set: (at: string) => Updateable<DB['brand_connectors']>;
    action: string;
    details: Record<string, unknown>;
  },
): Promise<ConnectorStatus> {
  const at = app.clock.now().toISOString();
  await inTransaction(app, async (app) => {
    await seedConnectors(app.db, app.config, brand.id, at);
    await app.db
      .updateTable('brand_connectors')
      .set(change.set(at))
      .where('id', '=', rowId(brand.id, connector))
      .execute();
    await writeAudit(app.db, {
      accountId: brand.account_id,
      brandId: brand.id,
      actor,
      action: change.action,
      details: change.details,
      at,
    });
  });
  const status = (await listConnectors(app, brand.id)).find((c) => c.connector === connector);
  return status!;
}

/** Switches one of a brand's connectors on or off. */
export async function setConnector(
  app: AppContext,
  brand: { id: string; account_id: string },
  connector: string,
  enabled: boolean,
  actor: string,
): Promise<ConnectorStatus> {
  if (!(app.config.connectors as readonly string[]).includes(connector)) {
    throw invalid(
      `connector: must be one of ${app.config.connectors.join(', ') || 'none (CONNECTORS is empty)'}`,
    );
  }
  return changeConnector(app, brand, connector as ConnectorId, actor, {
    // Switched on again, it starts afresh: what was published while it was off is
    // history, as at a first poll, not a flood of stories.
    set: (at) => ({
      enabled: enabled ? 1 : 0,
      ...(enabled && { next_poll_at: at, cursor: null, first_read_at: null }),
    }),
    action: enabled ? 'connector.enabled' : 'connector.disabled',
    details: { connector },
  });
}

/**
 * Connectors failing for an hour or more, across brands (`brs status` warns of them): how
 * many, and the longest failing.
 */
export async function failingConnectors(app: AppContext) {
  const connectors = app.config.connectors;
  if (connectors.length === 0) return { count: 0, first: [] };
  const hourAgo = new Date(app.clock.now().getTime() - 3_600_000).toISOString();
  const failing = app.db
    .selectFrom('brand_connectors as c')
    .innerJoin('brands as b', 'b.id', 'c.brand_id')
    .where('c.enabled', '=', 1)
    .where('c.connector', 'in', connectors)
    .where('c.failing_since', 'is not', null)
    .where('c.failing_since', '<=', hourAgo);
  const [count, first] = await Promise.all([
    failing.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
    failing
      .select(['b.host', 'c.connector', 'c.failing_since', 'c.last_error'])
      .orderBy('c.failing_since')
      .limit(5)
      .execute(),
  ]);
  return { count: Number(count?.n ?? 0), first };
}
