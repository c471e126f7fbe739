import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Cluster, startCluster } from '../support/cluster.js';

/**
 * An instance killed (SIGKILL) in the middle of a write burst through the balancer: no
 * acknowledged write is lost, and a client retrying with its Idempotency-Key gets the
 * original answer from a survivor, never a second write.
 */
let cluster: Cluster;
const BRAND = 'northwind.example';
const WRITES = 60;

beforeAll(async () => {
  cluster = await startCluster();
}, 90_000);
afterAll(() => cluster?.stop());

it('loses no acknowledged write and runs no write twice when an instance dies mid-burst', {
  timeout: 150_000,
}, async () => {
  const key = cluster.world.keys.owner;
  const story = cluster.world.stories.northwind;
  const post = (path: string, body: object, idem?: string) =>
    fetch(`${cluster.url}${path}`, {
      method: 'POST',
      headers: {
        'x-api-key': key,
        'content-type': 'application/json',
        ...(idem && { 'idempotency-key': idem }),
      },
      body: JSON.stringify(body),
    });
  expect((await post('/v1/advisory', { brand: BRAND, event_uri: story })).status).toBe(200);

  /** One write as a careful client makes it: retried with its key until it is answered. */
  const answers = new Map<string, string>();
  let acknowledged = 0;
  let retried = 0;
  const write = async (n: number) => {
    const idem = `burst-${n}`;
    // A write the dead instance was running holds its key "in progress" until the record
    // is stale (60 s, src/domain/idempotency.ts): then a retry runs it, once.
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      const res = await post('/v1/shares', { brand: BRAND, event_uri: story }, idem).catch(
        () => undefined,
      );
      const text = res ? await res.text() : '';
      if (res?.status === 200) {
        answers.set(idem, text);
        acknowledged++;
        return;
      }
      // Cut off (502), or still running elsewhere (409): ask again, with the same key.
      retried++;
      await new Promise((r) => setTimeout(r, res?.status === 409 ? 1000 : 100));
    }
    throw new Error(`${idem} was never answered`);
  };
  const victim = cluster.instances[1]!;
  let next = 0;
  const worker = async () => {
    while (next < WRITES) {
      const n = next++;
      if (n === 20) victim.child.kill('SIGKILL');
      await write(n);
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  expect(acknowledged).toBe(WRITES);
  // Every key ran once, and what it stored is what its client was answered. (A story has
  // one share: each write answers it, so the share table itself says nothing here.)
  const [records, shares] = await cluster.query((db) =>
    Promise.all([
      db
        .selectFrom('idempotency_records')
        .select(['idem_key', 'state', 'response_body'])
        .where('idem_key', 'like', 'burst-%')
        .execute(),
      db
        .selectFrom('shares as s')
        .innerJoin('stories as t', 't.id', 's.story_id')
        .select('s.id')
        .where('t.event_uri', '=', story)
        .execute(),
    ]),
  );
  expect(records).toHaveLength(WRITES);
  for (const r of records) {
    expect(r.state, r.idem_key).toBe('done');
    expect(r.response_body, r.idem_key).toBe(answers.get(r.idem_key));
  }
  expect(shares).toHaveLength(1);
  // The survivors carried on: the balancer took the dead one out of the rotation.
  const after = await fetch(`${cluster.url}/readyz`);
  expect(after.status).toBe(200);
  expect(['s1', 's3']).toContain(after.headers.get('x-served-by'));
  // The kill mattered: some writes were cut off or held, and were asked again.
  expect(retried).toBeGreaterThan(0);
});
