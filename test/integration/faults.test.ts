import { linkSync, renameSync, unlinkSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config.js';
import { type AppContext, createContext } from '../../src/context.js';
import { migrate } from '../../src/db/database.js';
import { isDatabaseOutage } from '../../src/db/errors.js';
import { buildServer } from '../../src/http/server.js';
import { defineJob, enqueue, JobRunner } from '../../src/jobs/queue.js';
import { searchStories } from '../../src/operations/stories/search-stories.js';
import { freshDatabase, REDIS_URL, testDialect } from '../support/databases.js';
import { PortalClient } from '../support/portal-client.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { seedWorld, type World } from '../support/world.js';

/**
 * Every fault of a dependency ends in a bounded 503 {"error":"service unavailable"} and
 * the service recovers without a restart, losing nothing it acknowledged: PostgreSQL
 * black-holed and refused, Redis gone or silent, SQLite locked by another process and its
 * file moved or deleted under the running service.
 */

const UNAVAILABLE = { error: 'service unavailable' };

interface Faulty {
  url: string;
  app: AppContext;
  w: World;
  /** Publishes note `n` on story `n` of northwind.example: idempotent, one row per story. */
  note(n: number): Promise<Timed>;
  get(path: string): Promise<Timed>;
  /** Every note answered 2xx, by story number, to check after recovery. */
  acknowledged: Map<number, string>;
}

interface Timed {
  status: number;
  body: unknown;
  ms: number;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A service over `databaseUrl` (a proxy in front of the real database, for some faults). */
async function startFaulty(
  databaseUrl: string,
  env: Record<string, string>,
  opts: { stories?: number; runJobs?: boolean } = {},
): Promise<Faulty> {
  const stories = opts.stories ?? 30;
  const app = await createContext(
    loadConfig({
      LOG_LEVEL: 'fatal',
      JOB_POLL_MS: '200',
      CONNECTORS: '',
      ...env,
      DATABASE_URL: databaseUrl,
    }),
  );
  cleanups.push(() => app.close());
  await migrate(app.db);
  const w = await seedWorld(app);
  const uris: string[] = [];
  for (let n = 1; n <= stories; n++) uris[n] = await w.story('northwind.example', n + 1);
  const server = await buildServer(app, { runJobs: opts.runJobs });
  cleanups.push(() => server.close());
  const url = await server.listen({ port: 0, host: '127.0.0.1' });
  const acknowledged = new Map<number, string>();
  const call = async (path: string, init: RequestInit = {}): Promise<Timed> => {
    const t0 = performance.now();
    const res = await fetch(`${url}${path}`, {
      ...init,
      headers: { 'x-api-key': w.keys.owner, 'content-type': 'application/json' },
    });
    const text = await res.text();
    return {
      status: res.status,
      body: text ? JSON.parse(text) : undefined,
      ms: performance.now() - t0,
    };
  };
  return {
    url,
    app,
    w,
    acknowledged,
    get: (path) => call(path),
    async note(n) {
      const text = `note ${n} at ${Date.now()}`;
      const r = await call('/v1/brand-note', {
        method: 'POST',
        body: JSON.stringify({ brand: 'northwind.example', event_uri: uris[n], text }),
      });
      if (r.status >= 200 && r.status < 300) acknowledged.set(n, text);
      return r;
    },
  };
}

/** The notes the service's database holds: text → story. */
async function storedNotes(svc: Faulty): Promise<Map<string, string>> {
  const rows = await svc.app.db
    .selectFrom('brand_notes')
    .innerJoin('stories', 'stories.id', 'brand_notes.story_id')
    .select(['stories.event_uri', 'brand_notes.text'])
    .execute();
  return new Map(rows.map((r) => [r.text, r.event_uri]));
}

/** Every note that got a 2xx is stored. */
async function expectNothingLost(svc: Faulty) {
  const stored = await storedNotes(svc);
  expect(svc.acknowledged.size).toBeGreaterThan(0);
  for (const text of svc.acknowledged.values()) expect(stored.has(text)).toBe(true);
}

function expectUnavailableWithin(r: Timed, boundMs: number) {
  expect(r.status).toBe(503);
  expect(r.body).toEqual(UNAVAILABLE);
  expect(r.ms).toBeLessThan(boundMs);
}

/** Asks until `probe` answers 200, for at most `withinMs`; answers how long it took. */
async function recovers(probe: () => Promise<Timed>, withinMs: number): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const r = await probe();
    if (r.status === 200) return performance.now() - t0;
    if (performance.now() - t0 > withinMs) {
      throw new Error(`still ${r.status} ${JSON.stringify(r.body)} after ${withinMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

const postgres = testDialect() === 'postgres';
const sqlite = testDialect() === 'sqlite';

if (postgres) {
  describe('PostgreSQL faults', () => {
    // Timeouts of 1 s: a query with no answer is given up after 2 s (statement + 1 s).
    const env = { DATABASE_CONNECT_TIMEOUT_MS: '1000', DATABASE_STATEMENT_TIMEOUT_MS: '1000' };
    const BOUND_MS = 3500;

    async function behindProxy(
      more: Record<string, string> = {},
      opts: { runJobs?: boolean; stories?: number } = {},
    ): Promise<{ svc: Faulty; proxy: TcpProxy }> {
      const db = await freshDatabase();
      cleanups.push(db.drop);
      const target = new URL(db.url);
      const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
      cleanups.push(() => proxy.close());
      target.port = String(proxy.port);
      return { svc: await startFaulty(target.toString(), { ...env, ...more }, opts), proxy };
    }

    it('black-holed: every request, read or write, and /readyz answer 503 within the timeouts; it recovers without a restart and loses nothing acknowledged', async () => {
      const { svc, proxy } = await behindProxy();
      for (let n = 1; n <= 3; n++) expect((await svc.note(n)).status).toBe(200);
      expect((await svc.get('/readyz')).status).toBe(200);

      proxy.blackHole();
      const acceptedBefore = proxy.accepted;
      // More requests at once than the pool has connections: some wait for one, bounded too.
      const during = await Promise.all([
        ...Array.from({ length: 12 }, (_, i) => svc.note(4 + i)),
        svc.get('/v1/brands'),
        svc.get('/readyz'),
      ]);
      for (const r of during) expectUnavailableWithin(r, BOUND_MS);
      // The job runner and feed scheduler keep polling the silent database: they log and
      // try again on their period (200 ms here), they do not spin or crash the process.
      await new Promise((r) => setTimeout(r, 2000));
      expect(proxy.accepted - acceptedBefore).toBeLessThan(40);
      expectUnavailableWithin(await svc.get('/readyz'), BOUND_MS);

      // The connections caught in the hole stay silent for good: a pooled client reused
      // after its query timed out would hang again; the service must open new ones.
      proxy.restore();
      const after: Timed[] = [];
      for (let n = 16; n <= 27; n++) after.push(await svc.note(n));
      for (const r of after) {
        expect(r.status).toBe(200);
        expect(r.ms).toBeLessThan(1000);
      }
      expect((await svc.get('/readyz')).status).toBe(200);
      await expectNothingLost(svc);
    });

    it('black-holed mid-export: that CSV export is cut within the timeouts, the process goes on, and once back the next export is whole', async () => {
      // More stories than one page of the export (200), so it reads the database again
      // while its response is streaming.
      const { svc, proxy } = await behindProxy({}, { stories: 205 });
      const person = new PortalClient(svc.url);
      await person.signIn('owner@northwind.example', 'correct horse battery');
      const cookie = person.cookieHeader();
      const exportCsv = () => fetch(`${svc.url}/app/stories.csv`, { headers: { cookie } });
      // The database stops answering just as the second page is read.
      const handler = searchStories.handler.bind(searchStories);
      vi.spyOn(searchStories, 'handler').mockImplementation(async (ctx, input) => {
        if (input.cursor) proxy.blackHole();
        return handler(ctx, input);
      });
      cleanups.push(async () => vi.restoreAllMocks());
      const t0 = performance.now();
      const res = await exportCsv();
      expect(res.status).toBe(200);
      const cut = await res.text().then(
        () => false,
        () => true,
      );
      expect(cut).toBe(true);
      expect(performance.now() - t0).toBeLessThan(BOUND_MS);
      vi.restoreAllMocks();
      // The process is still there, answering: 503 while the database is gone, then back.
      expectUnavailableWithin(await svc.get('/readyz'), BOUND_MS);
      proxy.restore();
      await recovers(() => svc.get('/readyz'), 10_000);
      const again = await exportCsv();
      expect(again.status).toBe(200);
      expect((await again.text()).trim().split('\n').length).toBeGreaterThan(205);
    });

    it('refused: with the database gone, requests and /readyz answer 503 at once; when it is back the service recovers', async () => {
      const { svc, proxy } = await behindProxy();
      expect((await svc.note(1)).status).toBe(200);
      await proxy.stop();
      for (let n = 2; n <= 4; n++) expectUnavailableWithin(await svc.note(n), 1500);
      expectUnavailableWithin(await svc.get('/v1/brands'), 1500);
      expectUnavailableWithin(await svc.get('/readyz'), 1500);
      await new Promise((r) => setTimeout(r, 600)); // the job runner fails a few polls meanwhile
      await proxy.start();
      await recovers(() => svc.get('/readyz'), 2000);
      for (let n = 5; n <= 8; n++) expect((await svc.note(n)).status).toBe(200);
      await expectNothingLost(svc);
    });

    it('a statement running longer than DATABASE_STATEMENT_TIMEOUT_MS is cancelled by PostgreSQL, and classed as an outage (503)', async () => {
      const { svc } = await behindProxy();
      const shown = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(
        svc.app.db,
      );
      expect(shown.rows[0]?.statement_timeout).toBe('1s');
      const t0 = performance.now();
      const err = await sql`select pg_sleep(5)`.execute(svc.app.db).catch((e: unknown) => e);
      expect((err as { code?: string }).code).toBe('57014');
      expect(isDatabaseOutage(err)).toBe(true);
      expect(performance.now() - t0).toBeLessThan(1900); // the server's cancel, not the client's
      expect((await svc.get('/readyz')).status).toBe(200);
    });

    it('while the database fails, the job runner backs off instead of hammering it, and runs due jobs once it is back', async () => {
      const { svc, proxy } = await behindProxy({ JOB_POLL_MS: '50' }, { runJobs: false });
      const ran: string[] = [];
      const mark = { name: 'fault.mark', payload: z.strictObject({ n: z.number() }) };
      const runner = new JobRunner(svc.app, [
        defineJob(mark, async (_app, payload) => ran.push(`job ${payload.n}`)),
      ]);
      runner.start();
      cleanups.push(() => runner.stop());
      proxy.reset();
      const before = proxy.accepted;
      await new Promise((r) => setTimeout(r, 3000));
      // Polling every 50 ms without backoff would try about 60 times in these 3 s.
      expect(proxy.accepted - before).toBeLessThan(15);
      proxy.restore();
      const now = new Date().toISOString();
      await enqueue(svc.app.db, mark, { n: 1 }, { now });
      // The backoff reached at most 3.2 s (50 ms doubled six times).
      const t0 = performance.now();
      while (ran.length === 0 && performance.now() - t0 < 8000) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(ran).toEqual(['job 1']);
    });

    it('unreachable from the start: the API, OAuth, /mcp and /readyz answer 503, never a 500', async () => {
      // Nothing listens on port 1: every query fails to connect.
      const app = await createContext(
        loadConfig({
          DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
          LOG_LEVEL: 'fatal',
          CONNECTORS: '',
        }),
      );
      cleanups.push(() => app.close());
      const server = await buildServer(app);
      cleanups.push(() => server.close());
      const url = await server.listen({ port: 0, host: '127.0.0.1' });
      const key = `brs_aaaaaaaaaaaa_${'A'.repeat(43)}`;
      const api = await fetch(`${url}/v1/brands`, { headers: { 'x-api-key': key } });
      expect(api.status).toBe(503);
      expect(await api.json()).toEqual(UNAVAILABLE);
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual(UNAVAILABLE);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      // The OAuth server and /mcp with a token need the database too.
      const discovery = await fetch(`${url}/.well-known/oauth-authorization-server`);
      expect(discovery.status).toBe(503);
      const mcp = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer some-oauth-access-token-value',
          'content-type': 'application/json',
        },
        body: '{}',
      });
      expect(mcp.status).toBe(503);
    });
  });
}

if (sqlite) {
  describe('SQLite faults', () => {
    const BUSY_MS = 500;

    async function onFile(): Promise<{ svc: Faulty; file: string }> {
      const db = await freshDatabase();
      cleanups.push(db.drop);
      const svc = await startFaulty(db.url, { DATABASE_BUSY_TIMEOUT_MS: String(BUSY_MS) });
      return { svc, file: db.url.slice('sqlite:'.length) };
    }

    it('locked: a write waits the busy timeout for another process’s write transaction, then answers 503; reads and idle job polls go on; it recovers when the lock is gone', async () => {
      const { svc, file } = await onFile();
      expect((await svc.note(1)).status).toBe(200);
      const other = new SQLite(file);
      cleanups.push(async () => other.close());
      other.pragma('busy_timeout = 0');
      await svc.app.jobs.drain();
      other.exec('BEGIN IMMEDIATE');
      // With no job due, the job runner's polls only read, which a writer does not block:
      // the lock does not freeze this process (SQLite's busy wait is synchronous).
      let slowest = 0;
      for (const t0 = performance.now(); performance.now() - t0 < 1500; ) {
        slowest = Math.max(slowest, (await svc.get('/healthz')).ms);
      }
      expect(slowest).toBeLessThan(250);
      for (let n = 2; n <= 3; n++) expectUnavailableWithin(await svc.note(n), BUSY_MS + 1500);
      // WAL: readers are not blocked by a writer.
      expect((await svc.get('/v1/brands')).status).toBe(200);
      other.exec('COMMIT');
      for (let n = 4; n <= 5; n++) expect((await svc.note(n)).status).toBe(200);
      await expectNothingLost(svc);
    });

    it('moved: while the opened file is not at its path, /readyz and every write answer 503; moved back, it recovers; every acknowledged write is in the file at the path', async () => {
      const { svc, file } = await onFile();
      for (let n = 1; n <= 2; n++) expect((await svc.note(n)).status).toBe(200);
      renameSync(file, `${file}.moved`);
      expectUnavailableWithin(await svc.get('/readyz'), 500);
      for (let n = 3; n <= 5; n++) expectUnavailableWithin(await svc.note(n), 500);
      renameSync(`${file}.moved`, file);
      expect((await svc.get('/readyz')).status).toBe(200);
      for (let n = 6; n <= 7; n++) expect((await svc.note(n)).status).toBe(200);
      await expectNothingLost(svc);
      // What a restart would open: the file at the path holds every acknowledged note.
      const reopened = new SQLite(file, { readonly: true });
      cleanups.push(async () => reopened.close());
      const texts = new Set(
        (reopened.prepare('select text from brand_notes').all() as { text: string }[]).map(
          (r) => r.text,
        ),
      );
      for (const text of svc.acknowledged.values()) expect(texts.has(text)).toBe(true);
    });

    it('deleted: while no file is at the path, writes and /readyz answer 503; when the same file is back, it recovers', async () => {
      const { svc, file } = await onFile();
      expect((await svc.note(1)).status).toBe(200);
      linkSync(file, `${file}.kept`);
      unlinkSync(file);
      expectUnavailableWithin(await svc.get('/readyz'), 500);
      expectUnavailableWithin(await svc.note(2), 500);
      linkSync(`${file}.kept`, file);
      expect((await svc.get('/readyz')).status).toBe(200);
      expect((await svc.note(3)).status).toBe(200);
      await expectNothingLost(svc);
    });
  });
}

describe('Redis faults', () => {
  async function withRedisProxy(env: Record<string, string> = {}) {
    const target = new URL(REDIS_URL);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    cleanups.push(() => proxy.close());
    const db = await freshDatabase();
    cleanups.push(db.drop);
    const svc = await startFaulty(
      db.url,
      { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, ...env },
      { stories: 6 },
    );
    return { svc, proxy };
  }

  it('gone: /readyz and rate-limited requests answer 503 at once, never a 500 or an unmetered 200; when Redis is back the service recovers', async () => {
    const { svc, proxy } = await withRedisProxy();
    expect((await svc.note(1)).status).toBe(200);
    expect((await svc.get('/readyz')).status).toBe(200);
    await proxy.stop();
    expectUnavailableWithin(await svc.get('/readyz'), 1000);
    expectUnavailableWithin(await svc.get('/v1/brands'), 1000);
    expectUnavailableWithin(await svc.note(2), 1000);
    await proxy.start();
    // ioredis reconnects by itself, with a backoff of at most 2 s.
    await recovers(() => svc.get('/readyz'), 5000);
    for (let n = 3; n <= 4; n++) expect((await svc.note(n)).status).toBe(200);
    await expectNothingLost(svc);
  });

  it('silent: a Redis that stops answering costs a request REDIS_TIMEOUT_MS, then 503; it recovers', async () => {
    const { svc, proxy } = await withRedisProxy({ REDIS_TIMEOUT_MS: '500' });
    expect((await svc.note(1)).status).toBe(200);
    proxy.blackHole();
    expectUnavailableWithin(await svc.get('/readyz'), 1500);
    expectUnavailableWithin(await svc.note(2), 1500);
    proxy.restore();
    // The silent connection is dropped and a new one made.
    await recovers(() => svc.get('/readyz'), 8000);
    expect((await svc.note(3)).status).toBe(200);
    await expectNothingLost(svc);
  });
});
