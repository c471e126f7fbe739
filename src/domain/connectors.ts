import {
  baseOf,
  brandQuery,
  type ConnectorId,
  type ConnectorItem,
  isPolled,
} from '../connectors/connector.js';
import { CONNECTORS } from '../connectors/index.js';
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import { decode } from '../db/json-columns.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { FetchRefused, safeFetch } from '../net/safe-fetch.js';
import { decodeBody } from '../pipeline/charset.js';
import { brandTermsOf } from './brands.js';
import { WINDOW } from './connector-schedule.js';
import { ingestLink } from './feeds.js';
import { type BrandRow, ingestArticle } from './ingest-article.js';
import { type ItemOutcome, type PollOutcome, readBatch } from './polls.js';
import { articleOf, holdPost, unhold } from './quiet-posts.js';

/**
 * Coverage the service finds itself (docs/sources.md, issue 43): a brand's connector
 * polled, its service asked for what is new and each item read into the pipeline once
 * (what each became is remembered). When they are polled is connector-schedule.ts; how
 * the team and operators see and switch them, connector-settings.ts.
 */

/** Items read per poll; the rest wait for the next one. */
const ITEMS_PER_POLL = 25;
/** At the first poll, what the service held before monitoring began is history: these last. */
const FIRST_POLL_ITEMS = 10;
/** A post makes a story of its own only with this much reach (points, comments, likes). */
export const POST_REACH = 10;
/** An item published longer ago than this is not read (retention forgets what was read at 60 days). */
const STALE_MS = 30 * 86_400_000;
const ACTOR = 'monitor';

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
