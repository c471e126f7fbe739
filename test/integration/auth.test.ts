import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { authenticateKey } from '../../src/auth/authenticate-key.js';
import { createKey, revokeKey } from '../../src/domain/api-key-admin.js';
import { startService, type TestService } from '../support/harness.js';
import { seedWorld, type World } from '../support/world.js';

let svc: TestService;
let w: World;

beforeAll(async () => {
  svc = await startService();
  w = await seedWorld(svc.app);
});
afterAll(() => svc.close());

const UNAUTHENTICATED = '{"error":"unknown or revoked API key"}';
const list = (headers: Record<string, string>) => svc.request('GET', '/v1/brands', { headers });

describe('API key authentication', () => {
  it('accepts the key in x-api-key and as a Bearer token', async () => {
    expect((await list({ 'x-api-key': w.keys.owner })).status).toBe(200);
    expect((await list({ authorization: `Bearer ${w.keys.owner}` })).status).toBe(200);
    expect((await list({ authorization: `bearer ${w.keys.owner}` })).status).toBe(200);
  });

  it('answers 401 with the exact text for a missing, malformed, unknown, tampered or revoked key', async () => {
    const prefix = w.keys.owner.slice(0, 16);
    const cases: Record<string, string>[] = [
      {},
      { 'x-api-key': '' },
      { 'x-api-key': 'not-a-key' },
      { authorization: 'Basic abc' },
      { authorization: 'Bearer' },
      { 'x-api-key': `${prefix}_${'A'.repeat(43)}` },
      { 'x-api-key': `brs_aaaaaaaaaaaa_${'A'.repeat(43)}` },
      { 'x-api-key': `${w.keys.owner.slice(0, -1)}${w.keys.owner.endsWith('A') ? 'B' : 'A'}` },
      { 'x-api-key': w.keys.revoked },
    ];
    for (const headers of cases) {
      const r = await list(headers);
      expect(r.status, JSON.stringify(headers)).toBe(401);
      expect(r.text).toBe(UNAUTHENTICATED);
    }
  });

  it('reads key state on every request: a revocation holds on the very next call', async () => {
    const k = await createKey(svc.app, {
      accountId: w.accounts.agency,
      role: 'member',
      scope: null,
      actor: 'test',
    });
    expect((await list({ 'x-api-key': k.key })).status).toBe(200);
    await revokeKey(svc.app, k.id, 'test');
    const r = await list({ 'x-api-key': k.key });
    expect(r.status).toBe(401);
    expect(r.text).toBe(UNAUTHENTICATED);
  });

  it('refuses a plan without API access with 403', async () => {
    const r = await list({ 'x-api-key': w.keys.starter });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: "outside this key's brand scope" });
  });

  it('stores keys only as hashes', async () => {
    const rows = await svc.app.db.selectFrom('api_keys').selectAll().execute();
    const dump = JSON.stringify(rows);
    for (const key of Object.values(w.keys)) {
      expect(dump).not.toContain(key);
      // brs_ + 12-character lookup + _ = 17 characters before the secret.
      expect(dump).not.toContain(key.slice(17));
    }
    for (const row of rows) expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('records when a key was last used', async () => {
    const k = await createKey(svc.app, {
      accountId: w.accounts.agency,
      role: 'member',
      scope: null,
      actor: 'test',
    });
    await list({ 'x-api-key': k.key });
    const row = await svc.app.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', k.id)
      .executeTakeFirstOrThrow();
    expect(row.last_used_at).not.toBeNull();
  });

  it('records the first uses of many keys at once in one write, and each key once a minute', async () => {
    const keys = await Promise.all(
      Array.from({ length: 5 }, () =>
        createKey(svc.app, {
          accountId: w.accounts.agency,
          role: 'member',
          scope: null,
          actor: 'test',
        }),
      ),
    );
    const updates = vi.spyOn(svc.app.db, 'updateTable');
    // The service's job runner and schedulers write too (claims), whenever they poll.
    const keyWrites = () => updates.mock.calls.filter(([table]) => table === 'api_keys').length;
    try {
      // Authenticated together, as the requests of one turn are.
      await Promise.all(keys.map((k) => authenticateKey(svc.app, k.key, '127.0.0.1')));
      expect(keyWrites()).toBe(1);
      const used = await svc.app.db
        .selectFrom('api_keys')
        .select('last_used_at')
        .where(
          'id',
          'in',
          keys.map((k) => k.id),
        )
        .execute();
      expect(used.map((r) => r.last_used_at).filter((at) => at !== null)).toHaveLength(5);
      // Used again within the minute: nothing to write.
      await Promise.all(keys.map((k) => authenticateKey(svc.app, k.key, '127.0.0.1')));
      expect(keyWrites()).toBe(1);
    } finally {
      updates.mockRestore();
    }
  });
});
