import { type AppContext, inTransaction } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import { AppError, conflict, invalid } from '../errors.js';
import { newId } from '../ids.js';
import { FEED_POLL } from '../jobs/kinds.js';
import { dispatcherFor, FetchRefused, safeFetch } from '../net/safe-fetch.js';
import { decodeBody } from '../pipeline/charset.js';
import { type FeedItem, parseFeed } from '../pipeline/feed.js';
import { readArticle } from '../pipeline/read-article.js';
import { writeAudit } from './audit.js';
import { type BrandRow, ingestArticle } from './ingest-article.js';
import { claimPoll, type ItemOutcome, type PollOutcome, readBatch } from './polls.js';

/**
 * Monitored sources: RSS and Atom feeds per brand (docs/pipeline.md, "Feeds"). Each feed
 * is due every FEED_POLL_MS; a process claims a due feed by moving its next poll forward
 * in the same transaction that enqueues the poll job, so one process polls it. The poll
 * asks conditionally (ETag, Last-Modified) and reads each item it has not seen.
 */
export const FEED_POLL_JOB = 'feed.poll';
/** Items read per poll; the rest wait for the next one. */
const ITEMS_PER_POLL = 25;
/** Items of a feed looked at, newest first: a feed is a window on recent news. */
const FEED_WINDOW = 500;
/** At the first poll, what the feed held before monitoring began is not news: these last. */
const FIRST_POLL_ITEMS = 10;
const ACTOR = 'monitor';

/** A feed URL must be http(s) and, as far as can be told now, on a public host. */
function checkFeedUrl(app: AppContext, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('url: must be an absolute http or https URL');
  }
  if (raw.length > 2000) throw invalid('url: must be at most 2000 characters');
  try {
    dispatcherFor(app.config, url);
  } catch (e) {
    if (e instanceof FetchRefused) throw invalid(`url: ${e.message}`);
    throw e;
  }
  return url.toString();
}

export async function addFeed(
  app: AppContext,
  brand: { id: string; account_id: string },
  rawUrl: string,
  actor: string,
): Promise<{ id: string; url: string }> {
  const url = checkFeedUrl(app, rawUrl);
  const at = app.clock.now().toISOString();
  const id = newId('fed');
  const added = inTransaction(app, async (app) => {
    const trx = app.db;
    const taken = await trx
      .selectFrom('brand_feeds')
      .select('id')
      .where('brand_id', '=', brand.id)
      .where('url', '=', url)
      .executeTakeFirst();
    if (taken) throw conflict(ALREADY);
    await trx
      .insertInto('brand_feeds')
      .values({
        id,
        brand_id: brand.id,
        url,
        etag: null,
        last_modified: null,
        last_polled_at: null,
        next_poll_at: at,
        last_status: null,
        last_error: null,
        created_at: at,
      })
      .execute();
    await writeAudit(trx, {
      accountId: brand.account_id,
      brandId: brand.id,
      actor,
      action: 'source.added',
      details: { url },
      at,
    });
    return { id, url };
  });
  // Two adds of one feed at once: the unique index refuses the second.
  return added.catch((e) => {
    throw isUniqueViolation(e) ? conflict(ALREADY) : e;
  });
}

const ALREADY = 'url: this feed is already monitored for the brand';

export async function listFeeds(app: AppContext, brandId: string) {
  return app.db
    .selectFrom('brand_feeds')
    .select(['id', 'url', 'last_polled_at', 'next_poll_at', 'last_status', 'last_error'])
    .where('brand_id', '=', brandId)
    .orderBy('created_at')
    .execute();
}

export async function removeFeed(
  app: AppContext,
  brand: { id: string; account_id: string },
  feedId: string,
  actor: string,
): Promise<void> {
  const at = app.clock.now().toISOString();
  await inTransaction(app, async (app) => {
    const trx = app.db;
    const feed = await trx
      .selectFrom('brand_feeds')
      .select('url')
      .where('id', '=', feedId)
      .where('brand_id', '=', brand.id)
      .executeTakeFirst();
    if (!feed) throw new AppError('not_found', `source ${feedId}: not found`);
    await trx.deleteFrom('feed_items').where('feed_id', '=', feedId).execute();
    await trx.deleteFrom('brand_feeds').where('id', '=', feedId).execute();
    await writeAudit(trx, {
      accountId: brand.account_id,
      brandId: brand.id,
      actor,
      action: 'source.removed',
      details: { url: feed.url },
      at,
    });
  });
}

/** Enqueues a poll of every feed that is due; answers how many this process claimed. */
export async function scheduleDueFeeds(app: AppContext): Promise<number> {
  const now = app.clock.now();
  const at = now.toISOString();
  const next = new Date(now.getTime() + app.config.feedPollMs).toISOString();
  const due = await app.db
    .selectFrom('brand_feeds')
    .select(['id', 'next_poll_at'])
    .where((eb) => eb.or([eb('next_poll_at', 'is', null), eb('next_poll_at', '<=', at)]))
    .orderBy('next_poll_at')
    .limit(100)
    .execute();
  let claimed = 0;
  for (const feed of due) {
    const job = { kind: FEED_POLL, payload: { feed: feed.id }, now: at };
    if (await claimPoll(app, 'brand_feeds', feed, next, job)) claimed++;
  }
  return claimed;
}

/** Schedules due feeds now and then every minute (or FEED_POLL_MS, if shorter). */
export function startFeedScheduler(app: AppContext): () => void {
  const run = () => {
    scheduleDueFeeds(app).catch((err) => app.log?.warn({ err }, 'feed scheduling failed'));
  };
  run();
  const timer = setInterval(run, Math.min(60_000, app.config.feedPollMs));
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The poll job. What goes wrong with the feed is recorded on it (last_status,
 * last_error) and the job ends; only an outage of our own throws, for a retry. Each new
 * item is read, detected, clustered and ingested, then remembered, so a poll that dies
 * half way reads only the rest again (an item it ingested but did not remember is found
 * by its URL and not added twice).
 */
export async function pollFeedJob(
  app: AppContext,
  payload: { feed: string },
): Promise<PollOutcome> {
  const feed = await app.db
    .selectFrom('brand_feeds as f')
    .innerJoin('brands as b', 'b.id', 'f.brand_id')
    .select(['f.id', 'f.url', 'f.etag', 'f.last_modified', 'f.last_polled_at', 'b.id as brand_id'])
    .select(['b.account_id', 'b.host', 'b.name', 'b.aliases', 'b.match_policy'])
    .where('f.id', '=', payload.feed)
    .executeTakeFirst();
  if (!feed) return { status: 'feed removed' };
  const at = app.clock.now().toISOString();
  const record = (fields: { last_status: string; last_error?: string | null }) =>
    app.db
      .updateTable('brand_feeds')
      .set({ last_polled_at: at, last_error: null, ...fields })
      .where('id', '=', feed.id)
      .execute();

  let res: Awaited<ReturnType<typeof safeFetch>>;
  try {
    res = await safeFetch(app.config, feed.url, {
      headers: {
        accept: 'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.8',
        ...(feed.etag && { 'if-none-match': feed.etag }),
        ...(feed.last_modified && { 'if-modified-since': feed.last_modified }),
      },
    });
  } catch (e) {
    if (!(e instanceof FetchRefused)) throw e;
    await record({ last_status: 'refused', last_error: e.message });
    return { status: 'refused' };
  }
  if (res.status === 304) {
    await record({ last_status: '304 not modified' });
    return { status: '304 not modified', items: 0 };
  }
  if (res.status !== 200) {
    await record({
      last_status: `HTTP ${res.status}`,
      last_error: `the feed answered HTTP ${res.status}`,
    });
    return { status: `HTTP ${res.status}` };
  }
  let items: FeedItem[];
  try {
    items = parseFeed(
      decodeBody(res.body, res.headers.get('content-type'), 'xml').text,
      res.url,
      new Date(at),
    ).slice(0, FEED_WINDOW);
  } catch (e) {
    await record({ last_status: 'unreadable', last_error: (e as Error).message });
    return { status: 'unreadable' };
  }

  const seen = new Set(
    items.length === 0
      ? []
      : (
          await app.db
            .selectFrom('feed_items')
            .select('item_key')
            .where('feed_id', '=', feed.id)
            .where(
              'item_key',
              'in',
              items.map((i) => i.key),
            )
            .execute()
        ).map((r) => r.item_key),
  );
  // Feeds list the newest first; reading the oldest first lets later coverage join it.
  let fresh = items.filter((i) => !seen.has(i.key)).reverse();
  if (feed.last_polled_at === null && fresh.length > FIRST_POLL_ITEMS) {
    // The feed's history is not news: it is remembered unread, and monitoring starts
    // from its newest items.
    const history = fresh.slice(0, fresh.length - FIRST_POLL_ITEMS);
    fresh = fresh.slice(-FIRST_POLL_ITEMS);
    for (const item of history) {
      await remember(app, feed.id, item, { outcome: 'skipped: before monitoring began' }, at);
    }
  }
  const batch = fresh.slice(0, ITEMS_PER_POLL);
  const brand = {
    id: feed.brand_id,
    account_id: feed.account_id,
    host: feed.host,
    name: feed.name,
    aliases: feed.aliases,
    match_policy: feed.match_policy,
  };
  const { counts, retry } = await readBatch(
    batch,
    (item) => ingestLink(app, brand, item, ACTOR),
    (item, outcome) => remember(app, feed.id, item, outcome, at),
  );
  const complete = batch.length === fresh.length && retry === 0;
  await app.db
    .updateTable('brand_feeds')
    .set({
      last_polled_at: at,
      last_error: null,
      last_status: `200: ${batch.length} new item${batch.length === 1 ? '' : 's'}${retry ? `, ${retry} to retry` : ''}`,
      // Validators are kept only once every item was read: a 304 must not hide the rest.
      ...(complete && {
        etag: res.headers.get('etag'),
        last_modified: res.headers.get('last-modified'),
      }),
    })
    .where('id', '=', feed.id)
    .execute();
  return { status: '200', items: batch.length, ...counts };
}

/** Records what became of an item, so it is not read again. */
async function remember(
  app: AppContext,
  feedId: string,
  item: FeedItem,
  outcome: { outcome: string; event_uri?: string },
  at: string,
) {
  await app.db
    .insertInto('feed_items')
    .values({
      id: newId('fit'),
      feed_id: feedId,
      item_key: item.key,
      url: item.url,
      outcome: outcome.outcome,
      event_uri: outcome.event_uri ?? null,
      created_at: at,
    })
    .onConflict((oc) => oc.columns(['feed_id', 'item_key']).doNothing())
    .execute();
}

/**
 * A link read from its page into the pipeline for the brand (a feed's item, a connector's):
 * what became of it; `transient` when the page may read later (down, slow, 5xx).
 */
export async function ingestLink(
  app: AppContext,
  brand: BrandRow,
  item: { url: string; published_at?: string },
  actor: string,
): Promise<ItemOutcome> {
  const read = await readArticle(app.config, item.url, item.published_at ?? null, app.clock.now());
  if (!read.ok) return { outcome: `skipped: ${read.reason}`, transient: read.transient };
  try {
    const r = await ingestArticle(app, brand, read.article, actor);
    return { outcome: r.status, event_uri: r.event_uri };
  } catch (e) {
    if (e instanceof AppError && e.code === 'invalid') {
      return { outcome: `skipped: ${e.message.replace(/^article: /, '')}` };
    }
    throw e;
  }
}
