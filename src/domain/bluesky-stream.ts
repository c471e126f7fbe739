import { randomUUID } from 'node:crypto';
import {
  authorOf,
  type JetEvent,
  jetstreamUrl,
  readJetstreamEvent,
} from '../connectors/bluesky.js';
import { type AppContext, inTransaction } from '../context.js';
import { decode, encode } from '../db/json-columns.js';
import { STREAM_POST } from '../jobs/kinds.js';
import { enqueue } from '../jobs/queue.js';
import { BrandMatcher } from '../pipeline/brand-matcher.js';
import { brandTermsOf } from './brands.js';
import { rowId } from './connector-rows.js';
import { ingestItem, POST_REACH, remember } from './connectors.js';
import { countOutcome, type OutcomeCounts, type PollOutcome } from './polls.js';

/**
 * Bluesky read from its Jetstream (connectors/bluesky.ts, docs/sources.md): one WebSocket
 * for every brand, read by one process at a time, which holds a lease on `stream_state`
 * and renews it; another takes over when it lapses (the holder died) and resumes from the
 * cursor, which is written in the same transaction as what the events up to it produced,
 * so an event is read once however processes come and go. Each post is matched against
 * every brand with Bluesky on; a post that names one waits in `stream_posts` for reach
 * (its likes, reposts and replies, counted as they stream by) and is read into the
 * brand's stories by a job once it has POST_REACH; one that never does is dropped after
 * two days.
 */

const NAME = 'bluesky';
/** A holder that stops renewing for this long has died: another process takes over. */
const LEASE_MS = 30_000;
/** How often the holder renews its lease and writes what it read (and others try to take it). */
const TICK_MS = 5_000;
/** The brands are read again this often, so a brand added or switched is matched. */
const BRANDS_MS = 60_000;
/** A post that finds no reach in this long is dropped. */
const WAIT_MS = 2 * 86_400_000;
/** A stream silent this long is opened again (Bluesky's network posts every second). */
const IDLE_MS = 60_000;
/** After the stream closes or fails, the first reconnection waits this long, then doubles. */
const RECONNECT_MS = 1_000;

interface Pending {
  posts: Extract<JetEvent, { kind: 'post' }>[];
  brands: Map<string, string[]>;
  /** Who reacted to which waiting post (a like, a repost, a reply). */
  reactions: { uri: string; account: string }[];
  /** Events read, of any kind. */
  events: number;
  cursor: number | null;
}

/** The lease was taken by another process: what this one read is not written. */
class LeaseLost extends Error {}

export interface BlueskyReader {
  /** Takes or renews the lease, connects or disconnects, writes what was read. */
  tick(): Promise<void>;
  /** Stops reading and gives the lease up (a crash gives it up by lapsing). */
  stop(): Promise<void>;
  readonly leading: boolean;
}

/**
 * Starts this process's Bluesky reader when `bluesky` is among CONNECTORS: it ticks every
 * five seconds and reads the brands every minute (tests tick it themselves with `every:
 * 0`, and may read the brands at every tick).
 */
export function startBlueskyStream(
  app: AppContext,
  opts: { every?: number; holder?: string; brandsEvery?: number; idleMs?: number } = {},
): BlueskyReader {
  const holder = opts.holder ?? `${process.pid}.${randomUUID()}`;
  let leading = false;
  let socket: WebSocket | null = null;
  let matcher: BrandMatcher<string> | null = null;
  let matcherAt = 0;
  /** Brands with Bluesky on: with none, the stream is not read at all. */
  let brandCount = 0;
  /** Posts waiting for reach, by at:// address: when each was seen (ms). */
  let waiting = new Map<string, number>();
  /** The stream closed or a write failed: read again from the cursor last written. */
  let reload = false;
  let pending: Pending = fresh(null);
  let failures = 0;
  let reconnectAt = 0;
  let stopped = false;
  /** When the stream last sent anything: a connection silent too long is opened again. */
  let lastMessageAt = 0;
  const idleMs = opts.idleMs ?? IDLE_MS;

  function fresh(cursor: number | null): Pending {
    return { posts: [], brands: new Map(), reactions: [], events: 0, cursor };
  }

  const onEvent = (raw: string) => {
    const e = readJetstreamEvent(raw);
    // Read before (a replay after reconnecting from the cursor), or not an event.
    if (!e || (pending.cursor !== null && e.time_us <= pending.cursor)) return;
    pending.cursor = e.time_us;
    pending.events++;
    if (e.kind === 'post') {
      if (e.reply_to && waiting.has(e.reply_to)) react(e.reply_to, e.author);
      const brands = matcher?.match(e.text) ?? [];
      if (brands.length > 0 && !waiting.has(e.uri)) {
        waiting.set(e.uri, Date.now());
        pending.posts.push(e);
        pending.brands.set(e.uri, brands);
      }
    } else if (e.kind === 'reaction' && waiting.has(e.subject)) {
      react(e.subject, e.by);
    }
  };
  /** A reaction counts for reach when it is not the author's own. */
  const react = (uri: string, account: string) => {
    if (account !== authorOf(uri)) pending.reactions.push({ uri, account });
  };

  async function takeLease(at: Date): Promise<boolean> {
    const now = at.toISOString();
    await app.db
      .insertInto('stream_state')
      .values({ name: NAME })
      .onConflict((oc) => oc.doNothing())
      .execute();
    const taken = await app.db
      .updateTable('stream_state')
      .set({ holder, lease_until: new Date(at.getTime() + LEASE_MS).toISOString() })
      .where('name', '=', NAME)
      .where((eb) =>
        eb.or([
          eb('holder', '=', holder),
          eb('holder', 'is', null),
          eb('lease_until', 'is', null),
          eb('lease_until', '<', now),
        ]),
      )
      .executeTakeFirst();
    return Number(taken.numUpdatedRows) === 1;
  }

  /** Newly leading: where the last holder read to, and the posts still waiting. */
  async function load(at: Date) {
    const state = await app.db
      .selectFrom('stream_state')
      .select('cursor')
      .where('name', '=', NAME)
      .executeTakeFirst();
    pending = fresh(state?.cursor ? Number(state.cursor) : null);
    const since = new Date(at.getTime() - WAIT_MS).toISOString();
    const rows = await app.db
      .selectFrom('stream_posts')
      .select(['uri', 'created_at'])
      .where('status', '=', 'waiting')
      .where('created_at', '>=', since)
      .execute();
    waiting = new Map(rows.map((r) => [r.uri, Date.parse(r.created_at)]));
    reload = false;
  }

  /** The brands with Bluesky on, as one matcher. */
  async function readBrands() {
    const rows = await app.db
      .selectFrom('brand_connectors as c')
      .innerJoin('brands as b', 'b.id', 'c.brand_id')
      .select(['b.id', 'b.host', 'b.name', 'b.aliases', 'b.match_policy'])
      .where('c.connector', '=', NAME)
      .where('c.enabled', '=', 1)
      .execute();
    matcher = new BrandMatcher(rows.map((b) => ({ brand: b.id, terms: brandTermsOf(b) })));
    matcherAt = Date.now();
    brandCount = rows.length;
  }

  function connect() {
    const url = jetstreamUrl(app.config.connectorUrls.bluesky, cursorOf(pending.cursor));
    const ws = new WebSocket(url);
    socket = ws;
    ws.addEventListener('open', () => {
      failures = 0;
      lastMessageAt = Date.now();
      void note({ connected_at: app.clock.now().toISOString(), last_error: null });
    });
    ws.addEventListener('message', (m) => {
      if (socket !== ws) return;
      lastMessageAt = Date.now();
      if (typeof m.data === 'string') onEvent(m.data);
    });
    ws.addEventListener('close', () => {
      if (socket !== ws) return;
      socket = null;
      // Reconnect from what was last written, after a wait that doubles with each failure.
      failures++;
      reconnectAt = Date.now() + Math.min(RECONNECT_MS * 2 ** (failures - 1), 60_000);
      void note({ last_error: `the stream closed (${failures} in a row)` }, true);
      reload = true;
    });
    ws.addEventListener('error', () => {
      // 'close' follows and reconnects.
    });
  }

  function disconnect() {
    const ws = socket;
    socket = null;
    ws?.close();
  }

  /** How the stream is doing, for `brs source list` and `brs status`. */
  async function note(
    fields: { connected_at?: string; last_error: string | null },
    failing = false,
  ) {
    const at = app.clock.now().toISOString();
    await app.db
      .updateTable('stream_state')
      .set((eb) => ({
        ...fields,
        failing_since: failing ? eb.fn.coalesce('failing_since', eb.val(at)) : null,
      }))
      .where('name', '=', NAME)
      .where('holder', '=', holder)
      .execute()
      .catch((err) => app.log?.warn({ err }, 'bluesky stream state not written'));
  }

  /**
   * Writes what was read since the last write, with the cursor it reached, in one
   * transaction: the posts that named a brand, the reach they found, and for each that now
   * has enough, its job. If the write fails, nothing of it counts: the stream is read
   * again from the cursor last written.
   */
  async function write() {
    const batch = pending;
    pending = fresh(batch.cursor);
    if (batch.cursor === null) return;
    const at = app.clock.now().toISOString();
    try {
      const ready = await inTransaction(app, async (app) => {
        // Only while this process still holds the stream: one that lost it (a stall past
        // its lease) writes nothing, and the holder reads the same events again.
        const held = await app.db
          .updateTable('stream_state')
          .set({ lease_until: new Date(Date.parse(at) + LEASE_MS).toISOString() })
          .where('name', '=', NAME)
          .where('holder', '=', holder)
          .where('lease_until', '>', at)
          .executeTakeFirst();
        if (Number(held.numUpdatedRows) !== 1) throw new LeaseLost();
        for (const p of batch.posts) {
          await app.db
            .insertInto('stream_posts')
            .values({
              uri: p.uri,
              url: p.url,
              author: p.author,
              text: p.text,
              links: encode('stream_posts.links', p.links),
              published_at: p.published_at,
              brand_ids: encode('stream_posts.brand_ids', batch.brands.get(p.uri) ?? []),
              status: 'waiting',
              created_at: at,
            })
            .onConflict((oc) => oc.doNothing())
            .execute();
          // Kept as a mention while it waits (and made a story with others like it).
          await enqueue(app.db, STREAM_POST, { uri: p.uri }, { now: at });
        }
        // Each account counts once for a post, however often it reacts.
        const reach = new Map<string, number>();
        for (const r of batch.reactions) {
          const added = await app.db
            .insertInto('stream_reactions')
            .values({ uri: r.uri, account: r.account, created_at: at })
            .onConflict((oc) => oc.columns(['uri', 'account']).doNothing())
            .executeTakeFirst();
          if (Number(added.numInsertedOrUpdatedRows ?? 0) > 0) {
            reach.set(r.uri, (reach.get(r.uri) ?? 0) + 1);
          }
        }
        const ready: string[] = [];
        for (const [uri, n] of reach) {
          const row = await app.db
            .updateTable('stream_posts')
            .set((eb) => ({ reach: eb('reach', '+', n) }))
            .where('uri', '=', uri)
            .where('status', '=', 'waiting')
            .returning(['reach'])
            .executeTakeFirst();
          if (!row || row.reach < POST_REACH) continue;
          await app.db
            .updateTable('stream_posts')
            .set({ status: 'queued' })
            .where('uri', '=', uri)
            .execute();
          await enqueue(app.db, STREAM_POST, { uri }, { now: at });
          ready.push(uri);
        }
        await app.db
          .updateTable('stream_state')
          // The last event's time only when one came: a silent stream shows as silent.
          .set({ cursor: String(batch.cursor), ...(batch.events > 0 && { last_event_at: at }) })
          .where('name', '=', NAME)
          .where('holder', '=', holder)
          .execute();
        return ready;
      });
      for (const uri of ready) waiting.delete(uri);
    } catch (err) {
      disconnect();
      reload = true;
      if (err instanceof LeaseLost) {
        leading = false;
        return;
      }
      app.log?.warn({ err }, 'bluesky stream not written: reading again from the cursor');
    }
  }

  async function forget() {
    pending = fresh(null);
    await app.db
      .updateTable('stream_state')
      .set({ cursor: null })
      .where('name', '=', NAME)
      .where('holder', '=', holder)
      .execute();
  }

  let pruneAt = 0;
  async function prune(at: Date) {
    if (Date.now() < pruneAt) return;
    pruneAt = Date.now() + 10 * 60_000;
    const before = new Date(at.getTime() - WAIT_MS).toISOString();
    await app.db.deleteFrom('stream_posts').where('created_at', '<', before).execute();
    await app.db.deleteFrom('stream_reactions').where('created_at', '<', before).execute();
    for (const [uri, seen] of waiting) if (seen < Date.now() - WAIT_MS) waiting.delete(uri);
  }

  let busy: Promise<void> = Promise.resolve();
  const tick = () => {
    // One tick at a time, whether from the timer or a test.
    busy = busy.then(async () => {
      if (stopped) return;
      const at = app.clock.now();
      const had = leading;
      leading = await takeLease(at);
      if (!leading) {
        disconnect();
        return;
      }
      if (!had || reload) await load(at);
      if (!matcher || Date.now() - matcherAt >= (opts.brandsEvery ?? BRANDS_MS)) await readBrands();
      await write();
      if (brandCount === 0) {
        // Nobody to read for: no connection, and when a brand switches Bluesky on, the
        // stream is read from then, not from a cursor left long ago.
        disconnect();
        await forget();
        return;
      }
      if (socket && lastMessageAt > 0 && Date.now() - lastMessageAt > idleMs) {
        // Silent too long (a half-open connection, a stalled server): open it again.
        disconnect();
        reload = true;
        await note(
          { last_error: `the stream sent nothing for ${Math.round(idleMs / 1000)} s` },
          true,
        );
      }
      if (reload) await load(at);
      if (!socket && Date.now() >= reconnectAt) connect();
      await prune(at);
    });
    return busy;
  };

  const timer =
    opts.every === 0
      ? null
      : setInterval(() => {
          tick().catch((err) => app.log?.warn({ err }, 'bluesky stream tick failed'));
        }, opts.every ?? TICK_MS);
  timer?.unref();

  return {
    tick,
    async stop() {
      if (timer) clearInterval(timer);
      await busy.catch(() => {});
      stopped = true;
      disconnect();
      if (leading) {
        await write();
        await app.db
          .updateTable('stream_state')
          .set({ holder: null, lease_until: null })
          .where('name', '=', NAME)
          .where('holder', '=', holder)
          .execute();
      }
      leading = false;
    },
    get leading() {
      return leading;
    },
  };
}

const cursorOf = (cursor: number | null) => (cursor === null ? null : String(cursor));

/**
 * The job for a post that named brands, when it is first seen and again when it finds
 * reach: read for each brand it named that still has Bluesky on, as a post is
 * (connectors.ts' ingestItem): while its reach is little it is kept as a mention (and may
 * make a story with others like it); with reach it becomes a story's source. What became
 * of it is remembered under the brand's Bluesky row once settled, so a retry reads none
 * twice.
 */
export async function streamPostJob(
  app: AppContext,
  payload: { uri: string },
): Promise<PollOutcome> {
  const post = await app.db
    .selectFrom('stream_posts')
    .selectAll()
    .where('uri', '=', payload.uri)
    .executeTakeFirst();
  if (!post || post.status === 'read') return { status: 'gone' };
  const ready = post.status === 'queued';
  const counts: OutcomeCounts = { created: 0, joined: 0, skipped: 0 };
  const at = app.clock.now().toISOString();
  for (const brandId of decode('stream_posts.brand_ids', post.brand_ids)) {
    const brand = await app.db
      .selectFrom('brands as b')
      .innerJoin('brand_connectors as c', 'c.brand_id', 'b.id')
      .select(['b.id', 'b.account_id', 'b.host', 'b.name', 'b.aliases', 'b.match_policy'])
      .where('b.id', '=', brandId)
      .where('c.connector', '=', NAME)
      .where('c.enabled', '=', 1)
      .executeTakeFirst();
    if (!brand) continue;
    const row = rowId(brand.id, NAME);
    const seen = await app.db
      .selectFrom('connector_items')
      .select('id')
      .where('brand_connector_id', '=', row)
      .where('item_key', '=', post.uri)
      .executeTakeFirst();
    if (seen) continue;
    const item = {
      key: post.uri,
      url: post.url,
      title: post.text.split('\n')[0]!.slice(0, 80),
      published_at: post.published_at,
      given: {
        text: post.text,
        publisher: 'Bluesky',
        author: post.author,
        type: 'social' as const,
        reach: post.reach,
        links: decode('stream_posts.links', post.links),
      },
    };
    const outcome = await ingestItem(app, brand, item);
    if (outcome.transient) throw new Error('a page the post links could not be read yet');
    // Held for little reach: not settled, reach may still come.
    if (!ready && outcome.outcome.startsWith('held')) continue;
    countOutcome(counts, outcome);
    await remember(app.db, row, item, outcome, at);
    await app.db
      .updateTable('brand_connectors')
      .set((eb) => ({
        last_polled_at: at,
        last_status: `post read: ${outcome.outcome}`,
        items_found: eb('items_found', '+', 1),
      }))
      .where('id', '=', row)
      .execute();
  }
  if (ready) {
    await app.db
      .updateTable('stream_posts')
      .set({ status: 'read' })
      .where('uri', '=', post.uri)
      .execute();
  }
  return { status: ready ? 'read' : 'held', items: 1, ...counts };
}

/**
 * How Bluesky's stream is doing, across processes (`brs status`): whether a process holds
 * it, the last event written, and a warning when it has failed for an hour or more, or
 * no process has read it for ten minutes. Null when `bluesky` is not among CONNECTORS.
 */
export async function blueskyHealth(app: AppContext) {
  if (!app.config.connectors.includes(NAME)) return null;
  const now = app.clock.now();
  const state = await app.db
    .selectFrom('stream_state')
    .selectAll()
    .where('name', '=', NAME)
    .executeTakeFirst();
  const reading = !!state?.lease_until && state.lease_until > now.toISOString();
  const hourAgo = new Date(now.getTime() - 3_600_000).toISOString();
  const tenAgo = new Date(now.getTime() - 600_000).toISOString();
  const warning =
    state?.failing_since && state.failing_since <= hourAgo
      ? `failing since ${state.failing_since}: ${state.last_error}`
      : !reading && (state?.last_event_at ?? '') < tenAgo
        ? 'no process has read the stream for ten minutes'
        : null;
  return { reading, last_event_at: state?.last_event_at ?? null, warning };
}
