import { createServer, type Server, Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type AppContext, createContext } from '../../src/context.js';
import { migrate } from '../../src/db/database.js';
import { isDatabaseOutage } from '../../src/db/errors.js';
import { LANE_APPLICATION_NAME, PostgresLane } from '../../src/db/postgres-lane.js';
import { buildServer } from '../../src/http/server.js';
import { freshDatabase, testDialect } from '../support/databases.js';
import { seedWorld, type World } from '../support/world.js';

/**
 * The hot reads on PostgreSQL share one connection per process (src/db/postgres-lane.ts),
 * written a turn's batch at a time behind one Sync (src/db/read-batch.ts): many requests'
 * reads in flight on it at once each get their own answer, a failing read fails alone,
 * and a broken connection is replaced.
 */
describe.runIf(testDialect() === 'postgres')(
  'PostgreSQL: the pipelined connection of the hot reads',
  () => {
    let db: { url: string; drop: () => Promise<void> };
    let admin: pg.Client;

    beforeAll(async () => {
      db = await freshDatabase();
      admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
    });
    afterAll(async () => {
      await admin.end();
      await db.drop();
    });

    /** The backends of the lane's connection on this test's database. */
    const laneBackends = async () =>
      (
        await admin.query<{ pid: number }>(
          'select pid from pg_stat_activity where datname = current_database() and application_name = $1',
          [LANE_APPLICATION_NAME],
        )
      ).rows.map((r) => r.pid);

    const lane = (statementMs = 30_000, readTimeoutMs?: number, url = db.url) =>
      new PostgresLane({
        connectionString: url,
        statement_timeout: statementMs,
        query_timeout: readTimeoutMs,
      });

    /**
     * A TCP proxy to the test database that can drop the next ReadyForQuery message the
     * server sends: the answers of a batch arrive, its end never does.
     */
    async function readyDroppingProxy() {
      const target = new URL(db.url);
      let dropNext = false;
      const sockets: Socket[] = [];
      const server: Server = createServer((client) => {
        const upstream = new Socket();
        sockets.push(client, upstream);
        upstream.connect(Number(target.port || 5432), target.hostname);
        client.pipe(upstream);
        let pending = Buffer.alloc(0);
        // The server's stream (no TLS here) is messages: a type byte and a length that
        // counts itself; each is passed on whole, but the one to drop.
        upstream.on('data', (chunk: Buffer) => {
          pending = Buffer.concat([pending, chunk]);
          const out: Buffer[] = [];
          while (pending.length >= 5) {
            const len = pending.readInt32BE(1);
            if (pending.length < 1 + len) break;
            const message = pending.subarray(0, 1 + len);
            pending = pending.subarray(1 + len);
            if (dropNext && message[0] === 0x5a) {
              dropNext = false;
              continue;
            }
            out.push(message);
          }
          if (out.length > 0) client.write(Buffer.concat(out));
        });
        const end = () => {
          client.destroy();
          upstream.destroy();
        };
        client.on('error', end).on('close', end);
        upstream.on('error', end).on('close', end);
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const port = (server.address() as { port: number }).port;
      const url = new URL(db.url);
      url.host = `127.0.0.1:${port}`;
      return {
        url: url.toString(),
        dropNextReady: () => {
          dropNext = true;
        },
        close: async () => {
          for (const socket of sockets) socket.destroy();
          await new Promise((r) => server.close(r));
        },
      };
    }

    it('through the service: 300 reads at once, of 20 stories and three keys, each get their own story, all on one connection', async () => {
      const app: AppContext = await createContext(
        loadConfig({
          DATABASE_URL: db.url,
          LOG_LEVEL: 'fatal',
          RATE_LIMIT_PER_MINUTE: '100000',
          CONNECTORS: '',
        }),
      );
      const server = await buildServer(app);
      try {
        await migrate(app.db);
        const w: World = await seedWorld(app);
        const uris: string[] = [];
        for (let n = 1; n <= 20; n++) uris.push(await w.story('northwind.example', 100 + n));
        const url = await server.listen({ port: 0, host: '127.0.0.1' });
        const keys = [w.keys.owner, w.keys.admin, w.keys.member];
        const answers = await Promise.all(
          Array.from({ length: 300 }, async (_, i) => {
            const uri = uris[i % uris.length]!;
            const res = await fetch(
              `${url}/v1/story?brand=northwind.example&event_uri=${encodeURIComponent(uri)}`,
              { headers: { 'x-api-key': keys[i % keys.length]! } },
            );
            return {
              uri,
              status: res.status,
              body: (await res.json()) as { story: { event_uri: string } },
            };
          }),
        );
        for (const a of answers) {
          expect(a.status).toBe(200);
          expect(a.body.story.event_uri).toBe(a.uri);
        }
        expect(await laneBackends()).toHaveLength(1);
      } finally {
        await server.close();
        await app.close();
      }
      // Closing the service closes the lane too.
      expect(await laneBackends()).toHaveLength(0);
    });

    it('a read that fails (here, past the statement timeout) fails alone: the reads sent before and after it on the connection are answered', async () => {
      const l = lane(300);
      try {
        const read = (n: number) =>
          l.query<{ n: number }>({ name: 'lane_test_n', text: 'select $1::int as n', values: [n] });
        const [before, slow, after] = await Promise.allSettled([
          read(1),
          l.query({ name: 'lane_test_sleep', text: 'select pg_sleep($1)', values: [2] }),
          read(2),
        ]);
        expect(before).toMatchObject({ status: 'fulfilled', value: { rows: [{ n: 1 }] } });
        expect(slow.status).toBe('rejected');
        expect((slow as PromiseRejectedResult).reason.code).toBe('57014');
        expect(after).toMatchObject({ status: 'fulfilled', value: { rows: [{ n: 2 }] } });
        expect((await read(3)).rows).toEqual([{ n: 3 }]);
      } finally {
        await l.end();
      }
    });

    /** The transaction a lane read runs in: reads behind one Sync share one. */
    const txOf = (l: PostgresLane, tag: number) =>
      l
        .query<{ tx: string; tag: number }>({
          name: 'lane_test_tx',
          text: 'select txid_current()::text as tx, $1::int as tag',
          values: [tag],
        })
        .then((r) => r.rows[0]!);

    it('the reads of one turn leave together, behind one Sync: they share one implicit transaction; reads of later turns get their own', async () => {
      const l = lane();
      try {
        const together = await Promise.all([1, 2, 3, 4, 5].map((n) => txOf(l, n)));
        expect(together.map((r) => r.tag)).toEqual([1, 2, 3, 4, 5]);
        expect(new Set(together.map((r) => r.tx)).size).toBe(1);
        const apart = [await txOf(l, 6), await txOf(l, 7)];
        expect(new Set([...apart, together[0]!].map((r) => r.tx)).size).toBe(3);
      } finally {
        await l.end();
      }
    });

    it('while a batch is out, the reads of the turns that follow gather into the next one', async () => {
      const l = lane();
      try {
        const slow = l.query({
          name: 'lane_test_sleep',
          text: 'select pg_sleep($1)',
          values: [0.3],
        });
        const later: Promise<{ tx: string; tag: number }>[] = [];
        for (let n = 1; n <= 4; n++) {
          await new Promise((r) => setTimeout(r, 20));
          later.push(txOf(l, n));
        }
        await slow;
        const rows = await Promise.all(later);
        expect(rows.map((r) => r.tag)).toEqual([1, 2, 3, 4]);
        expect(new Set(rows.map((r) => r.tx)).size).toBe(1);
      } finally {
        await l.end();
      }
    });

    it('a statement new to the connection is prepared once per batch and read by its description; one whose first run failed after it was parsed is prepared again', async () => {
      const l = lane();
      try {
        const asInt = (v: unknown) =>
          l.query<{ n: number; t: string }>({
            name: 'lane_test_int',
            text: "select $1::int as n, 'x'::text as t",
            values: [v],
          });
        // The value fails at Bind, after the Parse succeeded; the read after it in the batch
        // is sent again, and the statement is prepared again without a "already exists".
        const [bad, good] = await Promise.allSettled([asInt('not a number'), asInt(2)]);
        expect(bad.status).toBe('rejected');
        expect((bad as PromiseRejectedResult).reason.code).toBe('22P02');
        expect(good).toMatchObject({ status: 'fulfilled', value: { rows: [{ n: 2, t: 'x' }] } });
        // Two reads of a statement new to the connection in one batch: the second reads its
        // rows by the description the first asked for.
        const two = await Promise.all([
          l.query({ name: 'lane_test_pair', text: 'select $1::int + 1 as n', values: [1] }),
          l.query({ name: 'lane_test_pair', text: 'select $1::int + 1 as n', values: [41] }),
        ]);
        expect(two.map((r) => r.rows)).toEqual([[{ n: 2 }], [{ n: 42 }]]);
        expect((await asInt(3)).rows).toEqual([{ n: 3, t: 'x' }]);
      } finally {
        await l.end();
      }
    });

    it('a value the hot reads do not take (an object) is refused before it is sent; the connection goes on', async () => {
      const l = lane();
      try {
        const err = await l
          .query({ name: 'lane_test_n', text: 'select $1::int as n', values: [{ n: 1 }] })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(TypeError);
        const ok = await l.query({ name: 'lane_test_n', text: 'select $1::int as n', values: [5] });
        expect(ok.rows).toEqual([{ n: 5 }]);
      } finally {
        await l.end();
      }
    });

    it('reads failing batch after batch (statement timeouts under load) fail alone: the reads sent with them are all answered', async () => {
      const l = lane(100);
      const settle = (p: Promise<unknown>) =>
        p.then(
          (value) => ({ ok: true as const, value }),
          (reason: unknown) => ({ ok: false as const, reason }),
        );
      try {
        const slow: Promise<{ ok: boolean }>[] = [];
        const fast: Promise<{ ok: boolean; value?: unknown }>[] = [];
        // Every 20 ms a read that runs past the timeout and ten quick ones: while one batch
        // is out, several slow reads gather into the next.
        for (let round = 0; round < 6; round++) {
          slow.push(
            settle(l.query({ name: 'lane_test_sleep', text: 'select pg_sleep($1)', values: [1] })),
          );
          for (let n = 0; n < 10; n++) {
            fast.push(
              settle(
                l.query({
                  name: 'lane_test_n',
                  text: 'select $1::int as n',
                  values: [round * 10 + n],
                }),
              ),
            );
          }
          await new Promise((r) => setTimeout(r, 20));
        }
        expect((await Promise.all(slow)).map((o) => o.ok)).toEqual(Array(6).fill(false));
        const answers = await Promise.all(fast);
        expect(answers.filter((o) => !o.ok)).toEqual([]);
        expect(answers.map((o) => (o.value as { rows: unknown }).rows)).toEqual(
          Array.from({ length: 60 }, (_, n) => [{ n }]),
        );
      } finally {
        await l.end();
      }
    });

    it('a batch holds at most 64 reads: 200 reads of one turn leave as four batches, all answered', async () => {
      const l = lane();
      try {
        const rows = await Promise.all(Array.from({ length: 200 }, (_, n) => txOf(l, n)));
        expect(rows.map((r) => r.tag)).toEqual(Array.from({ length: 200 }, (_, n) => n));
        expect(new Set(rows.map((r) => r.tx)).size).toBe(4);
      } finally {
        await l.end();
      }
    });

    it('the reads waiting for their batch when the connection breaks were never sent: they go to the next connection', async () => {
      const l = lane();
      try {
        await l.query({ name: 'lane_test_one', text: 'select 1', values: [] });
        const [pid] = await laneBackends();
        const out = l
          .query({ name: 'lane_test_sleep', text: 'select pg_sleep($1)', values: [5] })
          .catch((e: unknown) => e);
        await new Promise((r) => setTimeout(r, 100));
        const waiting = Array.from({ length: 500 }, (_, n) => txOf(l, n));
        await new Promise((r) => setTimeout(r, 100));
        await admin.query('select pg_terminate_backend($1)', [pid]);
        expect(isDatabaseOutage(await out)).toBe(true);
        expect((await Promise.all(waiting)).map((r) => r.tag)).toEqual(
          Array.from({ length: 500 }, (_, n) => n),
        );
        const now = await laneBackends();
        expect(now).toHaveLength(1);
        expect(now[0]).not.toBe(pid);
      } finally {
        await l.end();
      }
    });

    it('a batch whose answers came but not its end (the connection stopped answering) is given up after the read timeout, and the connection with it: the reads behind it go to a new one', async () => {
      const proxy = await readyDroppingProxy();
      const l = lane(30_000, 300, proxy.url);
      try {
        expect((await txOf(l, 1)).tag).toBe(1);
        const [pid] = await laneBackends();
        proxy.dropNextReady();
        // Its answer came: the read has its row, but the batch never ends.
        expect((await txOf(l, 2)).tag).toBe(2);
        const t0 = performance.now();
        expect((await Promise.all([3, 4].map((n) => txOf(l, n)))).map((r) => r.tag)).toEqual([
          3, 4,
        ]);
        expect(performance.now() - t0).toBeLessThan(2000);
        expect(await laneBackends()).not.toContain(pid);
      } finally {
        await l.end();
        await proxy.close();
      }
    });

    it('ending the lane lets the reads out be answered before it closes the connection', async () => {
      const l = lane();
      const out = l.query<{ n: number }>({
        name: 'lane_test_late',
        text: 'select $1::int as n from pg_sleep(0.3)',
        values: [9],
      });
      await new Promise((r) => setTimeout(r, 50));
      await l.end();
      expect((await out).rows).toEqual([{ n: 9 }]);
      expect(await laneBackends()).toHaveLength(0);
    });

    it('a connection broken under reads fails them as an outage (503, not a bug), and the next read opens a new one', async () => {
      const l = lane();
      try {
        await l.query({ name: 'lane_test_one', text: 'select 1', values: [] });
        const [pid] = await laneBackends();
        const inFlight = l.query({
          name: 'lane_test_sleep',
          text: 'select pg_sleep($1)',
          values: [5],
        });
        const failed = inFlight.then(
          () => null,
          (err: unknown) => err,
        );
        await new Promise((r) => setTimeout(r, 200));
        await admin.query('select pg_terminate_backend($1)', [pid]);
        const err = await failed;
        expect(err).toBeInstanceOf(Error);
        expect(isDatabaseOutage(err)).toBe(true);

        const again = await l.query<{ n: number }>({
          name: 'lane_test_n',
          text: 'select $1::int as n',
          values: [7],
        });
        expect(again.rows).toEqual([{ n: 7 }]);
        const now = await laneBackends();
        expect(now).toHaveLength(1);
        expect(now[0]).not.toBe(pid);
      } finally {
        await l.end();
      }
    });

    /** A setting as the lane's session has it. */
    const setting = async (l: PostgresLane, name: string) =>
      (
        await l.query<Record<string, string>>({
          name: `lane_test_show_${name}`,
          text: `show ${name}`,
          values: [],
        })
      ).rows[0]![name];

    it('the session costs a random page at 1.1, not the default 4 (at 4 the key lookup read small tables whole: docs/benchmarks.md)', async () => {
      const l = lane();
      try {
        expect(await setting(l, 'random_page_cost')).toBe('1.1');
      } finally {
        await l.end();
      }
    });

    it("options in the database URL apply beside the lane's, and a random_page_cost chosen there wins", async () => {
      const withOptions = (options: string) => {
        const url = new URL(db.url);
        url.searchParams.set('options', options);
        return lane(30_000, undefined, url.toString());
      };
      const beside = withOptions('-c work_mem=7MB');
      const chosen = withOptions('-c random_page_cost=2');
      try {
        expect(await setting(beside, 'work_mem')).toBe('7MB');
        expect(await setting(beside, 'random_page_cost')).toBe('1.1');
        expect(await setting(chosen, 'random_page_cost')).toBe('2');
      } finally {
        await Promise.all([beside.end(), chosen.end()]);
      }
    });

    it('once ended, a read is refused as an outage and no connection is left', async () => {
      const l = lane();
      await l.query({ name: 'lane_test_one', text: 'select 1', values: [] });
      await l.end();
      const err = await l
        .query({ name: 'lane_test_one', text: 'select 1', values: [] })
        .catch((e) => e);
      expect(isDatabaseOutage(err)).toBe(true);
      expect(await laneBackends()).toHaveLength(0);
    });
  },
);
