import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateKey } from '../../src/auth/authenticate-key.js';
import { inTransaction } from '../../src/context.js';
import { brandFor } from '../../src/policy.js';
import { startService, type TestService } from '../support/harness.js';
import { seedWorld, type World } from '../support/world.js';

/**
 * The brand a request names is read in the key's own statement and handed to brandFor
 * (brandReadAhead, src/policy.ts): one round trip fewer on PostgreSQL, with the same
 * answers as a read of its own.
 */
let svc: TestService;
let w: World;

beforeAll(async () => {
  svc = await startService();
  w = await seedWorld(svc.app);
});
afterAll(() => svc.close());

const authenticate = (key: string, host?: string) =>
  authenticateKey(svc.app, key, '127.0.0.1', host).then((a) => a.actor);

/** Renames a brand behind the service's back, so a test can tell which read answered. */
const rename = (host: string, name: string) =>
  svc.app.db.updateTable('brands').set({ name }).where('host', '=', host).execute();

describe('the brand read with the key', () => {
  it('answers brandFor once, for its host, outside a transaction; anything else reads the brand again', async () => {
    await rename('northwind.example', 'Northwind');
    const actor = await authenticate(w.keys.owner, 'northwind.example');
    await rename('northwind.example', 'Renamed');
    // The first call takes the brand as read with the key; the next reads it anew.
    expect((await brandFor(svc.app, actor, 'northwind.example')).brand.name).toBe('Northwind');
    expect((await brandFor(svc.app, actor, 'northwind.example')).brand.name).toBe('Renamed');

    // Another host than the one read ahead: read on its own.
    const other = await authenticate(w.keys.owner, 'northwind.example');
    expect((await brandFor(svc.app, other, 'acme.com')).relation).toBe('delegated');

    // Inside a transaction, the transaction's own read.
    const inTrx = await authenticate(w.keys.owner, 'northwind.example');
    await rename('northwind.example', 'Renamed again');
    const name = await inTransaction(svc.app, async (app) => {
      return (await brandFor(app, inTrx, 'northwind.example')).brand.name;
    });
    expect(name).toBe('Renamed again');
    await rename('northwind.example', 'Northwind');
  });

  it('gives the same answers as a read of its own: own, delegated, foreign, unknown, out of scope', async () => {
    const cases: [key: string, host: string, answer: string][] = [
      [w.keys.owner, 'northwind.example', 'own'],
      [w.keys.owner, 'acme.com', 'delegated'],
      [w.keys.owner, 'globex.com', 'not found'],
      [w.keys.owner, 'nowhere.example', 'not found'],
      [w.keys.other, 'acme.com', 'not found'],
      [w.keys.scopedNorthwind, 'acme.com', "outside this key's brand scope"],
    ];
    const answer = (actorPromise: ReturnType<typeof authenticate>, host: string) =>
      actorPromise
        .then((actor) => brandFor(svc.app, actor, host))
        .then(
          (a) => a.relation,
          (e: Error) => e.message,
        );
    // A host is read ahead as the operation parses it (trimmed, lower case); a malformed
    // one is not sent to the database with the key (the operation refuses it later).
    const spelled = await authenticate(w.keys.owner, ' NorthWind.Example ');
    await rename('northwind.example', 'Spelled');
    expect((await brandFor(svc.app, spelled, 'northwind.example')).brand.name).toBe('Northwind');
    await rename('northwind.example', 'Northwind');
    for (const hostile of ['a\u0000b', 'x'.repeat(100_000), '%00', "' or 1=1 --"]) {
      expect((await authenticate(w.keys.owner, hostile)).accountId).toBe(w.accounts.agency);
    }
    for (const [key, host, expected] of cases) {
      expect(await answer(authenticate(key, host), host), `${host}, read ahead`).toBe(expected);
      expect(await answer(authenticate(key), host), `${host}, read alone`).toBe(expected);
    }
  });

  it('a delegation revoked after one request holds on the next, over REST and MCP', async () => {
    const host = await w.clientBrand();
    const get = () => svc.request('GET', `/v1/stories?brand=${host}`, { key: w.keys.owner });
    const call = () =>
      svc.request('POST', '/mcp', {
        key: w.keys.owner,
        headers: {
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'v1_list_stories', arguments: { brand: host } },
        },
      });
    expect((await get()).status).toBe(200);
    expect((await call()).body.result.isError).toBeUndefined();
    await svc.app.db
      .updateTable('delegations')
      .set({ status: 'revoked' })
      .where('brand_id', '=', svc.app.db.selectFrom('brands').select('id').where('host', '=', host))
      .execute();
    expect((await get()).status).toBe(404);
    expect((await call()).body.result.isError).toBe(true);
  });
});
