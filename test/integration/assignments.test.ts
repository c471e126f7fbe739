import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/domain/accounts.js';
import { subscribe } from '../../src/domain/billing-admin.js';
import { startService, type TestService } from '../support/harness.js';
import { seedWorld, type World } from '../support/world.js';

/** Story and phase assignment, phase completion and the story status machine. */
let svc: TestService;
let w: World;
let n = 30;
const BRAND = 'northwind.example';
const TEAMMATE = 'owner@northwind.example';

beforeAll(async () => {
  svc = await startService({ SEAT_CAP_AGENCY: '3', SEAT_CAP_PARTNER: '3' });
  w = await seedWorld(svc.app);
  await subscribe(svc.app, w.accounts.agency, 'test');
  await subscribe(svc.app, w.accounts.client, 'test');
  await subscribe(svc.app, w.accounts.other, 'test');
  await addUser(svc.app, {
    accountId: w.accounts.other,
    email: 'someone@globex.com',
    password: 'correct horse battery',
    role: 'member',
  });
});
afterAll(() => svc.close());

const send = (method: string, path: string, input: object, key = w.keys.owner, brand = BRAND) =>
  method === 'POST'
    ? svc.request(method, path, { key, body: { brand, ...input } })
    : svc.request(method, path, { key, query: { brand, ...input } as Record<string, string> });
const status = async (event_uri: string, brand = BRAND) =>
  (await svc.request('GET', '/v1/story', { key: w.keys.owner, query: { brand, event_uri } })).body
    .story;

async function unlocked(brand = BRAND) {
  const e = await w.story(brand, n++);
  expect((await send('POST', '/v1/advisory', { event_uri: e }, w.keys.owner, brand)).body.ok).toBe(
    true,
  );
  return e;
}

describe('refusals of spec section 7', () => {
  it('404 for an unknown email without invite, with the contract text', async () => {
    const e = await w.story(BRAND, n++);
    for (const [path, extra] of [
      ['/v1/story/assign', {}],
      ['/v1/story/phase-assign', { phase: 1 }],
    ] as const) {
      const target = path === '/v1/story/phase-assign' ? await unlocked() : e;
      const r = await send('POST', path, {
        event_uri: target,
        assignee: 'nobody@example.org',
        ...extra,
      });
      expect(r.status).toBe(404);
      expect(r.text).toBe('{"error":"unknown teammate; pass invite=true to invite them"}');
    }
  });

  it('409 for an email of another account, even with invite', async () => {
    const e = await w.story(BRAND, n++);
    const r = await send('POST', '/v1/story/assign', {
      event_uri: e,
      assignee: 'someone@globex.com',
      invite: true,
    });
    expect(r.status).toBe(409);
    expect(r.text).toBe('{"error":"email belongs to another account"}');
  });

  it('the named 403 on a delegated brand, for every assignment operation', async () => {
    const e = await unlocked('acme.com');
    const calls: [string, string, object][] = [
      ['POST', '/v1/story/assign', { assignee: TEAMMATE }],
      ['DELETE', '/v1/story/assign', {}],
      ['POST', '/v1/story/phase-assign', { phase: 1, assignee: TEAMMATE }],
      ['DELETE', '/v1/story/phase-assign', { phase: 1 }],
    ];
    for (const [method, path, extra] of calls) {
      const r = await send(method, path, { event_uri: e, ...extra }, w.keys.owner, 'acme.com');
      expect(r.status).toBe(403);
      expect(r.text).toBe('{"error":"assignment is not allowed on a delegated brand"}');
    }
    // Completing a phase on a delegated brand is allowed: the key holder is the operator.
    const done = await send(
      'POST',
      '/v1/story/phase-done',
      { event_uri: e, phase: 1 },
      w.keys.owner,
      'acme.com',
    );
    expect(done.status).toBe(200);
  });

  it('phase assignment and completion need an unlocked advisory (409)', async () => {
    const e = await w.story(BRAND, n++);
    for (const [path, extra] of [
      ['/v1/story/phase-assign', { assignee: TEAMMATE }],
      ['/v1/story/phase-done', {}],
    ] as const) {
      const r = await send('POST', path, { event_uri: e, phase: 1, ...extra });
      expect(r.status).toBe(409);
      expect(r.text).toBe('{"error":"advisory is locked"}');
    }
  });

  it('invite=true invites into the team and takes a seat; the seat cap refuses with 403', async () => {
    // Cap 3: the owner holds one seat.
    const e = await w.story(BRAND, n++);
    const first = await send('POST', '/v1/story/assign', {
      event_uri: e,
      assignee: 'New.Person@Northwind.example',
      invite: true,
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      assignee: 'new.person@northwind.example',
      invited: true,
      status: 'assigned',
    });
    const second = await send('POST', '/v1/story/assign', {
      event_uri: e,
      assignee: 'second@northwind.example',
      invite: true,
    });
    expect(second.body.invited).toBe(true);
    // Now a known teammate: no new invitation, no new seat.
    const known = await send('POST', '/v1/story/assign', {
      event_uri: e,
      assignee: 'new.person@northwind.example',
    });
    expect(known.body.invited).toBe(false);
    const full = await send('POST', '/v1/story/assign', {
      event_uri: e,
      assignee: 'third@northwind.example',
      invite: true,
    });
    expect(full.status).toBe(403);
    expect(full.text).toBe(`{"error":"outside this key's brand scope"}`);
    const seats = await svc.app.db
      .selectFrom('memberships')
      .select('status')
      .where('account_id', '=', w.accounts.agency)
      .execute();
    expect(seats.map((s) => s.status).sort()).toEqual(['active', 'invited', 'invited']);
  });

  it('validates phase numbers and comments', async () => {
    const e = await unlocked();
    const bad = await send('POST', '/v1/story/phase-done', { event_uri: e, phase: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^phase: /);
    const missing = await send('POST', '/v1/story/phase-done', { event_uri: e, phase: 99 });
    expect(missing.status).toBe(404);
    const long = await send('POST', '/v1/story/phase-done', {
      event_uri: e,
      phase: 1,
      comment: 'x'.repeat(501),
    });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatch(/^comment: must be at most 500 characters/);
    const query = await send('DELETE', '/v1/story/phase-assign', { event_uri: e, phase: 'one' });
    expect(query.status).toBe(400);
  });
});

describe('status machine', () => {
  it('new → assigned → in_progress → new on unassign → closed on the last phase', async () => {
    const e = await unlocked();
    expect((await status(e)).status).toBe('new');
    const a = await send('POST', '/v1/story/assign', { event_uri: e, assignee: TEAMMATE });
    expect(a.body.status).toBe('assigned');
    expect((await status(e)).assignee).toBe(TEAMMATE);

    const p = await send('POST', '/v1/story/phase-assign', {
      event_uri: e,
      phase: 1,
      assignee: TEAMMATE,
    });
    expect(p.body.status).toBe('in_progress');

    const u = await send('DELETE', '/v1/story/assign', { event_uri: e });
    expect(u.body).toMatchObject({ unassigned: true, status: 'new' });
    expect((await status(e)).assignee).toBeNull();
    const again = await send('DELETE', '/v1/story/assign', { event_uri: e });
    expect(again.body).toMatchObject({ unassigned: false, status: 'new' });

    const phases = (await status(e)).advisory.phases.length;
    for (let i = 1; i < phases; i++) {
      const d = await send('POST', '/v1/story/phase-done', { event_uri: e, phase: i });
      expect(d.body.status).toBe('in_progress');
    }
    const last = await send('POST', '/v1/story/phase-done', {
      event_uri: e,
      phase: phases,
      comment: 'All done',
    });
    expect(last.body).toMatchObject({ status: 'closed', already_done: false });
    expect(last.body.done_by).toMatch(/^key:key_/);
    const s = await status(e);
    expect(s.status).toBe('closed');
    expect(s.advisory.phases.at(-1)).toMatchObject({
      status: 'done',
      comment: 'All done',
      done_by: last.body.done_by,
    });
    // Done again: nothing changes.
    const repeat = await send('POST', '/v1/story/phase-done', { event_uri: e, phase: phases });
    expect(repeat.body).toMatchObject({ already_done: true, done_at: last.body.done_at });
  });

  it('unassigning a done phase keeps it done; a done phase cannot be assigned', async () => {
    const e = await unlocked();
    await send('POST', '/v1/story/phase-assign', { event_uri: e, phase: 1, assignee: TEAMMATE });
    await send('POST', '/v1/story/phase-done', { event_uri: e, phase: 1 });
    const r = await send('DELETE', '/v1/story/phase-assign', { event_uri: e, phase: 1 });
    expect(r.body).toMatchObject({ unassigned: true, phase: 1 });
    const phase = (await status(e)).advisory.phases[0];
    expect(phase).toMatchObject({ status: 'done', assignee: null });
    const assign = await send('POST', '/v1/story/phase-assign', {
      event_uri: e,
      phase: 1,
      assignee: TEAMMATE,
    });
    expect(assign.status).toBe(409);
    expect(assign.text).toBe('{"error":"phase is already done"}');
  });

  it('writes one audit row per change, readable with brs audit', async () => {
    const e = await unlocked();
    await send('POST', '/v1/story/assign', { event_uri: e, assignee: TEAMMATE });
    await send('POST', '/v1/story/phase-assign', { event_uri: e, phase: 1, assignee: TEAMMATE });
    await send('POST', '/v1/story/phase-done', { event_uri: e, phase: 1, comment: 'Checked' });
    await send('DELETE', '/v1/story/phase-assign', { event_uri: e, phase: 1 });
    await send('DELETE', '/v1/story/assign', { event_uri: e });
    const { listAudit } = await import('../../src/domain/audit.js');
    const brand = await svc.app.db
      .selectFrom('brands')
      .select('id')
      .where('host', '=', BRAND)
      .executeTakeFirstOrThrow();
    const mine = (await listAudit(svc.app, brand.id, 1000))
      .filter((x) => x.event_uri === e && !x.action.startsWith('billing.'))
      .reverse();
    expect(mine.map((x) => x.action)).toEqual([
      'story.created',
      'advisory.unlocked',
      'story.assigned',
      'phase.assigned',
      'phase.done',
      'phase.unassigned',
      'story.unassigned',
    ]);
    expect(mine.find((x) => x.action === 'phase.done')!.details).toEqual({
      phase: 1,
      comment: 'Checked',
    });
  });
});

describe('concurrent changes to one story or team', () => {
  it('the last two phases marked done at once close the story', async () => {
    const e = await unlocked();
    const phases = (await status(e)).advisory.phases.length;
    for (let p = 1; p <= phases - 2; p++)
      await send('POST', '/v1/story/phase-done', { event_uri: e, phase: p });
    const [a, b] = await Promise.all([
      send('POST', '/v1/story/phase-done', { event_uri: e, phase: phases - 1 }),
      send('POST', '/v1/story/phase-done', { event_uri: e, phase: phases }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect([a.body.status, b.body.status]).toContain('closed');
    expect((await status(e)).status).toBe('closed');
  });

  it('concurrent invites never exceed the seat cap', async () => {
    // Globex (partner plan, cap 3) has one member: two seats are left.
    const e = await w.story('globex.com', n++);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        send(
          'POST',
          '/v1/story/assign',
          { event_uri: e, assignee: `new${i}@globex.com`, invite: true },
          w.keys.other,
          'globex.com',
        ),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(2);
    expect(answers.filter((a) => a.status === 403)).toHaveLength(4);
    const seats = await svc.app.db
      .selectFrom('memberships')
      .select('user_id')
      .where('account_id', '=', w.accounts.other)
      .execute();
    expect(seats).toHaveLength(3);
  });
});
