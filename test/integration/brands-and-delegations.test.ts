import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { createKey } from '../../src/domain/api-key-admin.js';
import { addBrand } from '../../src/domain/brands.js';
import { grantDelegation } from '../../src/domain/delegations.js';
import { startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';
import { seedWorld, type World } from '../support/world.js';

let svc: TestService;
let w: World;

beforeAll(async () => {
  svc = await startService();
  w = await seedWorld(svc.app);
});
afterAll(() => svc.close());

describe('GET /v1/brands', () => {
  it('lists own brands and actively delegated client brands', async () => {
    const r = await svc.request('GET', '/v1/brands', { key: w.keys.member });
    expect(r.status).toBe(200);
    expect(r.body.brands).toEqual([
      {
        brand: 'acme.com',
        name: 'Acme',
        verified: true,
        delegated: true,
        client: w.accounts.client,
      },
      {
        brand: 'northwind.example',
        name: 'Northwind',
        verified: true,
        delegated: false,
        client: null,
      },
      {
        brand: 'unverified.example',
        name: 'Unverified',
        verified: false,
        delegated: false,
        client: null,
      },
    ]);
  });

  it('shows a brand-scoped key only its scope', async () => {
    const r = await svc.request('GET', '/v1/brands', { key: w.keys.scopedAcme });
    expect(r.body.brands.map((b: { brand: string }) => b.brand)).toEqual(['acme.com']);
  });

  it('drops a client brand once its delegation is no longer active, everywhere at once', async () => {
    const extra = await svc.request('GET', '/v1/brands', { key: w.keys.other });
    expect(extra.body.brands.map((b: { brand: string }) => b.brand)).toEqual(['globex.com']);
    await svc.app.db.updateTable('delegations').set({ status: 'revoked' }).execute();
    const r = await svc.request('GET', '/v1/brands', { key: w.keys.owner });
    expect(r.body.brands.map((b: { brand: string }) => b.brand)).not.toContain('acme.com');
    const story = await svc.request('GET', '/v1/stories', {
      key: w.keys.owner,
      query: { brand: 'acme.com' },
    });
    expect(story.text).toBe('{"error":"not found"}');
    const rows = await svc.request('GET', '/v1/delegations', { key: w.keys.owner });
    expect(rows.body.delegations).toEqual([
      { brand_key: 'acme.com', status: 'revoked', client: w.accounts.client },
    ]);
    await svc.app.db.updateTable('delegations').set({ status: 'active' }).execute();
  });
});

describe('GET /v1/delegations', () => {
  it("lists the partner's delegations", async () => {
    const r = await svc.request('GET', '/v1/delegations', { key: w.keys.owner });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      delegations: [{ brand_key: 'acme.com', status: 'active', client: w.accounts.client }],
    });
  });

  it('shows a scoped key only the delegations of its brands', async () => {
    const r = await svc.request('GET', '/v1/delegations', { key: w.keys.scopedNorthwind });
    expect(r.body).toEqual({ delegations: [] });
  });

  it('is empty for an account with none', async () => {
    const r = await svc.request('GET', '/v1/delegations', { key: w.keys.other });
    expect(r.body).toEqual({ delegations: [] });
  });
});

describe('operations a key can never perform', () => {
  for (const path of ['/v1/delegations', '/v1/api-keys']) {
    it(`POST ${path} is always 403, whoever asks and whatever the body`, async () => {
      for (const body of [undefined, {}, { brand: 'acme.com' }, { role: 'owner' }]) {
        const r = await svc.request('POST', path, { key: w.keys.owner, body });
        expect(r.status).toBe(403);
        expect(r.body).toEqual({ error: "outside this key's brand scope" });
      }
      const before = await svc.app.db.selectFrom('api_keys').select('id').execute();
      const after = await svc.request('POST', path, {
        key: w.keys.owner,
        body: {},
        headers: { 'idempotency-key': `never-${path}` },
      });
      expect(after.status).toBe(403);
      expect(await svc.app.db.selectFrom('api_keys').select('id').execute()).toHaveLength(
        before.length,
      );
    });

    it(`POST ${path} is 403 before the body is read: malformed, wrong type, oversized`, async () => {
      const bodies: { rawBody: string; headers?: Record<string, string> }[] = [
        { rawBody: 'xx' },
        { rawBody: '{"brand": ' },
        { rawBody: '' },
        { rawBody: 'brand=acme.com', headers: { 'content-type': 'text/plain' } },
        { rawBody: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
        { rawBody: `{"x":"${'a'.repeat(2 * 1024 * 1024)}"}` },
      ];
      for (const b of bodies) {
        const r = await svc.request('POST', path, { key: w.keys.owner, ...b });
        expect(r.status, b.rawBody.slice(0, 20)).toBe(403);
        expect(r.body).toEqual({ error: "outside this key's brand scope" });
      }
      // A bad key is still a 401, whatever the body.
      const bad = await svc.request('POST', path, { key: 'brs_nope', rawBody: 'xx' });
      expect(bad.status).toBe(401);
      const none = await svc.request('POST', path, { rawBody: 'xx' });
      expect(none.status).toBe(401);
    });
  }
});

describe('dropping a client brand in the portal', () => {
  it('asks first, saying what follows, then says where the brand went', async () => {
    // An agency of its own: the other tests count Northwind's delegations.
    const agency = await createAccount(svc.app, 'Dropping Agency', 'agency');
    await addUser(svc.app, {
      accountId: agency,
      email: 'owner@dropping.example',
      password: 'correct horse battery',
      role: 'owner',
    });
    const { key } = await createKey(svc.app, {
      accountId: agency,
      role: 'owner',
      scope: null,
      actor: 'test',
    });
    const host = 'dropped-client.example';
    const client = await createAccount(svc.app, 'Dropped Client', 'pro');
    await addBrand(svc.app, { accountId: client, host, name: 'Dropped', verified: true });
    await grantDelegation(svc.app, { partnerId: agency, clientId: client, host, actor: 'test' });
    const c = new PortalClient(svc.url);
    expect((await c.signIn('owner@dropping.example', 'correct horse battery')).status).toBe(303);
    await c.get('/app/partners');
    const asked = await c.post('/app/partners/drop', { brand: host });
    expect(asked.status).toBe(200);
    expect(asked.html).toContain(`<h1>Drop the client brand ${host}?</h1>`);
    expect(asked.html).toContain('goes back to the client with a 7-day trial of the partner plan');
    const read = () => svc.request('GET', '/v1/stories', { key, query: { brand: host } });
    expect((await read()).status).toBe(200);

    const dropped = await c.post('/app/partners/drop', { brand: host, confirmed: 'yes' });
    expect(dropped.location).toBe('/app/partners?done=client-dropped-handed-back');
    expect((await c.get(dropped.location!)).html).toContain(
      'It went back to the client, with a 7-day trial of the partner plan.',
    );
    expect((await read()).status).toBe(404);
  });
});
