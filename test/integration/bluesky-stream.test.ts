import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { createAccount } from '../../src/domain/accounts.js';
import { type BlueskyReader, startBlueskyStream } from '../../src/domain/bluesky-stream.js';
import { requireBrandByHost } from '../../src/domain/brands.js';
import { listConnectors, setConnector } from '../../src/domain/connector-settings.js';
import { serviceStatus } from '../../src/domain/status.js';
import { brs } from '../support/cli.js';
import { startService, type TestService } from '../support/harness.js';

/**
 * Issue 43: Bluesky read from a local server that speaks Jetstream's protocol (a WebSocket
 * of JSON events, `wantedCollections` and `cursor` in its address; samples written here).
 * One process reads it under a lease; a post naming a brand waits for reach, counted from
 * the likes streaming by, then becomes a story; when the reader dies another takes over
 * from the cursor written and nothing is lost or read twice.
 */
let svc: TestService;
let env: Record<string, string>;
let account: string;
let wss: WebSocketServer;
/** Each connection the stream took: its address, and its socket. */
const connections: { url: URL; socket: WebSocket }[] = [];

const AUTHOR = 'did:plc:abcdefghijklmnopqrstuvwx';
let time = 1795860000000000;
const postEvent = (rkey: string, text: string, extra: Record<string, unknown> = {}) => ({
  did: AUTHOR,
  time_us: ++time,
  kind: 'commit',
  commit: {
    rev: 'r',
    operation: 'create',
    collection: 'app.bsky.feed.post',
    rkey,
    record: { $type: 'app.bsky.feed.post', createdAt: '2026-11-28T10:00:00.000Z', text, ...extra },
    cid: 'c',
  },
});
const likeEvent = (rkey: string, n: number, by = `did:plc:fan${n}`) => ({
  did: by,
  time_us: ++time,
  kind: 'commit',
  commit: {
    rev: 'r',
    operation: 'create',
    collection: n % 3 === 0 ? 'app.bsky.feed.repost' : 'app.bsky.feed.like',
    rkey: `like${n}`,
    record: {
      subject: { uri: `at://${AUTHOR}/app.bsky.feed.post/${rkey}`, cid: 'c' },
      createdAt: '2026-11-28T10:01:00Z',
    },
  },
});
const send = (socket: WebSocket, events: object[]) => {
  for (const e of events) socket.send(JSON.stringify(e));
};

/** Ticks the reader until the check holds (the stream's messages arrive in their own time). */
async function until(reader: BlueskyReader, check: () => Promise<boolean>) {
  const end = Date.now() + 5000;
  while (Date.now() < end) {
    await reader.tick();
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the stream did not get there in 5 s');
}
const waitFor = async (check: () => boolean) => {
  const end = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};
const postRow = (rkey: string) =>
  svc.app.db
    .selectFrom('stream_posts')
    .select(['status', 'reach'])
    .where('uri', '=', `at://${AUTHOR}/app.bsky.feed.post/${rkey}`)
    .executeTakeFirst();

beforeAll(async () => {
  wss = new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/subscribe' });
  await once(wss, 'listening');
  wss.on('connection', (socket, req) => {
    connections.push({ url: new URL(req.url ?? '/', 'ws://127.0.0.1'), socket });
  });
  const port = (wss.address() as AddressInfo).port;
  const config = {
    CONNECTORS: 'bluesky',
    BLUESKY_JETSTREAM_URL: `ws://127.0.0.1:${port}/subscribe`,
  };
  svc = await startService(config, { runJobs: false });
  const db = svc.app.config.database;
  env = { ...config, DATABASE_URL: db.dialect === 'postgres' ? db.url : db.file };
  account = await createAccount(svc.app, 'Zentrix', 'partner');
});
afterAll(async () => {
  wss.close();
  await svc.close();
});

describe('Bluesky', () => {
  it('is read by one process: a post naming a brand becomes a story once it has reach; a reader that dies is replaced from its cursor, nothing lost', async () => {
    for (const [host, name] of [
      ['zentrix-sky.example', 'Zentrix'],
      ['quorvex-sky.example', 'Quorvex'],
    ] as const) {
      expect(
        (await brs(env, 'brand', 'add', '--account', account, '--host', host, '--name', name)).code,
      ).toBe(0);
    }
    const zentrix = await requireBrandByHost(svc.app, 'zentrix-sky.example');
    const quorvex = await requireBrandByHost(svc.app, 'quorvex-sky.example');
    await setConnector(svc.app, quorvex, 'bluesky', false, 'test');
    const row = (await listConnectors(svc.app, zentrix.id)).find((c) => c.connector === 'bluesky')!;
    expect(row).toMatchObject({ name: 'Bluesky', enabled: true, next_poll_at: null });

    const a = startBlueskyStream(svc.app, { every: 0, holder: 'A' });
    const b = startBlueskyStream(svc.app, { every: 0, holder: 'B' });
    await a.tick();
    await b.tick();
    expect([a.leading, b.leading]).toEqual([true, false]);
    await waitFor(() => connections.length === 1);
    const first = connections[0]!;
    expect(first.url.searchParams.getAll('wantedCollections')).toEqual([
      'app.bsky.feed.post',
      'app.bsky.feed.like',
      'app.bsky.feed.repost',
    ]);
    // A first reader starts from now: no cursor.
    expect(first.url.searchParams.has('cursor')).toBe(false);

    send(first.socket, [
      postEvent('p1', 'Check your battery before charging tonight', {
        embed: {
          $type: 'app.bsky.embed.external',
          external: {
            uri: 'https://planet.example/zentrix-recall',
            title: 'Zentrix recalls 40,000 PowerCell 9 battery packs over fire risk',
            description: 'Owners should stop charging the packs at once.',
          },
        },
      }),
      postEvent('p2', 'Lovely morning for a ride.'),
      postEvent('p3', 'Thinking about a Zentrix bike, anyone have one?'),
      // Quorvex has Bluesky off: its mention is not kept.
      postEvent('p4', 'Quorvex opened a store in Lyon.'),
      ...Array.from({ length: 10 }, (_, n) => likeEvent('p1', n + 1)),
      likeEvent('p3', 1),
    ]);
    await until(a, async () => (await postRow('p1'))?.status === 'queued');
    expect(await postRow('p2')).toBeUndefined();
    expect(await postRow('p4')).toBeUndefined();
    expect(await postRow('p3')).toEqual({ status: 'waiting', reach: 1 });
    await svc.app.jobs.drain();
    const stories = await svc.app.db
      .selectFrom('articles as a')
      .innerJoin('stories as s', 's.id', 'a.story_id')
      .select(['a.url', 'a.type', 'a.publisher', 'a.title'])
      .where('s.brand_id', '=', zentrix.id)
      .execute();
    expect(stories).toEqual([
      {
        url: `https://bsky.app/profile/${AUTHOR}/post/p1`,
        type: 'social',
        publisher: 'Bluesky',
        title: 'Check your battery before charging tonight',
      },
    ]);
    expect((await postRow('p1'))?.status).toBe('read');

    // Reach is accounts, not clicks: the author's own likes and replies, and a fan liking
    // again, add nothing.
    send(first.socket, [
      likeEvent('p3', 50, AUTHOR),
      likeEvent('p3', 51, AUTHOR),
      postEvent('r1', 'I agree with myself', {
        reply: {
          root: { uri: `at://${AUTHOR}/app.bsky.feed.post/p3`, cid: 'c' },
          parent: { uri: `at://${AUTHOR}/app.bsky.feed.post/p3`, cid: 'c' },
        },
      }),
      likeEvent('p3', 1),
      postEvent('mark', 'nothing'),
    ]);
    await until(a, async () => {
      const s = await svc.app.db.selectFrom('stream_state').select('cursor').executeTakeFirst();
      return s?.cursor === String(time);
    });
    expect(await postRow('p3')).toEqual({ status: 'waiting', reach: 1 });
    const written = await svc.app.db
      .selectFrom('stream_state')
      .select('cursor')
      .where('name', '=', 'bluesky')
      .executeTakeFirstOrThrow();
    expect(written.cursor).toBe(String(time));

    // A dies: it stops renewing and writing; what reaches it now is lost with it.
    send(first.socket, [likeEvent('p3', 2), likeEvent('p3', 3)]);
    await new Promise((r) => setTimeout(r, 100));
    await svc.app.db
      .updateTable('stream_state')
      .set({ lease_until: '2000-01-01T00:00:00.000Z' })
      .execute();
    await b.tick();
    expect(b.leading).toBe(true);
    await waitFor(() => connections.length === 2);
    const second = connections[1]!;
    // B resumes where A last wrote, so it is sent again what A read and did not write.
    expect(second.url.searchParams.get('cursor')).toBe(written.cursor);
    time = Number(written.cursor);
    send(second.socket, [
      // Jetstream may send the cursor's own event again: not counted twice.
      { ...likeEvent('p1', 99), time_us: Number(written.cursor) },
      ...Array.from({ length: 9 }, (_, n) => likeEvent('p3', n + 2)),
    ]);
    await until(b, async () => (await postRow('p3'))?.status === 'queued');
    expect((await postRow('p3'))?.reach).toBe(10);
    await svc.app.jobs.drain();
    expect((await postRow('p3'))?.status).toBe('read');
    // A, back, finds B holding the stream and reads nothing.
    await a.tick();
    expect(a.leading).toBe(false);
    const status = await serviceStatus(svc.app);
    expect(status.bluesky).toMatchObject({ reading: true, warning: null });
    await a.stop();
    await b.stop();
    // Stopped cleanly, B gives the stream up at once.
    expect((await serviceStatus(svc.app)).bluesky?.reading).toBe(false);

    // A reader whose lease was taken while it stalled writes nothing of what it read.
    const d = startBlueskyStream(svc.app, { every: 0, holder: 'D' });
    await d.tick();
    expect(d.leading).toBe(true);
    await waitFor(() => connections.length === 3);
    const before = await svc.app.db
      .selectFrom('stream_state')
      .select('cursor')
      .executeTakeFirstOrThrow();
    send(connections[2]!.socket, [likeEvent('p9', 1)]);
    await new Promise((r) => setTimeout(r, 100));
    await svc.app.db
      .updateTable('stream_state')
      .set({ holder: 'E', lease_until: new Date(Date.now() + 60_000).toISOString() })
      .execute();
    await d.tick();
    expect(d.leading).toBe(false);
    const after = await svc.app.db
      .selectFrom('stream_state')
      .select(['cursor', 'holder'])
      .executeTakeFirstOrThrow();
    expect(after).toEqual({ cursor: before.cursor, holder: 'E' });
    await d.stop();
    await svc.app.db.updateTable('stream_state').set({ holder: null, lease_until: null }).execute();

    // A stream silent too long is opened again, from the cursor written.
    const quiet = startBlueskyStream(svc.app, { every: 0, holder: 'Q', idleMs: 100 });
    await quiet.tick();
    await waitFor(() => connections.length === 4);
    await new Promise((r) => setTimeout(r, 200));
    await quiet.tick();
    await waitFor(() => connections.length === 5);
    expect(connections[4]!.url.searchParams.get('cursor')).toBe(before.cursor);
    await quiet.stop();

    // With no brand reading Bluesky, the stream is not read at all, and its cursor is let
    // go: a brand switching it on later is read from then, not from long ago.
    await setConnector(svc.app, zentrix, 'bluesky', false, 'test');
    const c = startBlueskyStream(svc.app, { every: 0, holder: 'C', brandsEvery: 0 });
    await c.tick();
    expect(c.leading).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    expect(connections).toHaveLength(5);
    const idle = await svc.app.db
      .selectFrom('stream_state')
      .select('cursor')
      .executeTakeFirstOrThrow();
    expect(idle.cursor).toBeNull();
    await setConnector(svc.app, zentrix, 'bluesky', true, 'test');
    await c.tick();
    await waitFor(() => connections.length === 6);
    expect(connections[5]!.url.searchParams.has('cursor')).toBe(false);
    await c.stop();
  });
});
