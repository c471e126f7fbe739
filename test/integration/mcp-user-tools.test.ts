import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/domain/accounts.js';
import { listAudit } from '../../src/domain/audit.js';
import { subscribe } from '../../src/domain/billing-admin.js';
import { addBrand, requireBrandByHost } from '../../src/domain/brands.js';
import { listOutbox } from '../../src/email/outbox.js';
import { restOperations } from '../../src/operations/index.js';
import { startService, type TestService } from '../support/harness.js';
import { expectFullyDescribed } from '../support/mcp-tools.js';
import { signIn } from '../support/oauth-browser.js';
import { seedWorld, type World } from '../support/world.js';

/** The user-session tools of spec 4.3, as a signed-in user's agent calls them. */
let svc: TestService;
let w: World;
const PASSWORD = 'correct horse battery';
const BRAND = 'northwind.example';
const clients: Record<'owner' | 'admin' | 'member', Client> = {} as never;
const tokens: Record<'owner' | 'admin' | 'member', string> = {} as never;

interface Result {
  isError?: boolean;
  content: { type: 'text'; text: string }[];
  structuredContent: any;
}

beforeAll(async () => {
  svc = await startService({}, { runJobs: false });
  w = await seedWorld(svc.app);
  // A subscription exists: the user tools must still never charge.
  await subscribe(svc.app, w.accounts.agency, 'test');
  await addUser(svc.app, {
    accountId: w.accounts.agency,
    email: 'admin@northwind.example',
    password: PASSWORD,
    role: 'admin',
  });
  await addUser(svc.app, {
    accountId: w.accounts.agency,
    email: 'member@northwind.example',
    password: PASSWORD,
    role: 'member',
  });
  for (const role of ['owner', 'admin', 'member'] as const) {
    const { access_token } = await signIn(svc.url, {
      email: `${role}@northwind.example`,
      password: PASSWORD,
    });
    tokens[role] = access_token;
    const client = new Client({ name: 'user-tools-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${access_token}` } },
      }),
    );
    clients[role] = client;
  }
});
afterAll(async () => {
  for (const c of Object.values(clients)) await c.close();
  await svc.close();
});

const call = (role: 'owner' | 'admin' | 'member', name: string, args: Record<string, unknown>) =>
  clients[role].callTool({ name, arguments: args }) as Promise<Result>;

let n = 100;
const freshStory = () => w.story(BRAND, n++);

describe('user-session tools', () => {
  it('every tool is fully described (description, described parameters, output schema, all four hints)', async () => {
    const { tools } = await clients.owner.listTools();
    // The agency's users also get the v1_ tools (a plan with API access), but for the two
    // that always refuse: an owner is offered 10 + 22.
    expect(tools.length).toBe(10 + restOperations.length - 2);
    expectFullyDescribed(tools);
    // Assigning again emails the assignee again: neither tool may say it is idempotent.
    for (const name of ['assign_action', 'v1_assign_phase']) {
      expect(tools.find((t) => t.name === name)?.annotations?.idempotentHint, name).toBe(false);
    }
  });

  it('each person is offered what they can run, described for a person, in under 44 KB', async () => {
    const listed = async (role: 'owner' | 'admin' | 'member') =>
      (await clients[role].listTools()).tools;
    const owner = await listed('owner');
    const member = await listed('member');
    // Never a word about keys to a person; the bar a person must meet instead.
    for (const t of owner) expect(t.description, t.name).not.toMatch(/\bkeys?\b/i);
    expect(owner.find((t) => t.name === 'v1_drop_delegation')?.description).toContain(
      'Needs the owner or admin role.',
    );
    // Which of two similar tools to use.
    expect(owner.find((t) => t.name === 'v1_get_story')?.description).toBe(
      "The same as get_story, with REST's argument names (brand for brand_id) and answer; prefer get_story.",
    );
    expect(owner.find((t) => t.name === 'list_stories')?.description).toContain(
      'use search_stories',
    );
    // A member is not offered what only owners and admins may do, nor what nobody may.
    const memberNames = member.map((t) => t.name);
    for (const name of [
      'apply_advisory_update',
      'v1_apply_advisory_proposal',
      'v1_dismiss_advisory_proposal',
      'v1_drop_delegation',
      'v1_create_delegation_invite',
      'v1_create_api_key',
      'v1_grant_delegation',
    ]) {
      expect(memberNames).not.toContain(name);
    }
    expect(memberNames).toEqual(
      expect.arrayContaining(['get_story', 'add_context', 'v1_assign_story']),
    );
    expect(owner.map((t) => t.name)).toContain('apply_advisory_update');
    // The whole answer, as an agent receives it: it was 86 KB with 34 tools; issue 41 brought
    // it under 40 KB (39,821 bytes), and issue 43's v1_list_mentions (about 2 KB, a tool an
    // agent asking what is said of a brand needs) takes it to 41,962: the bar is 44 KB.
    const res = await fetch(`${svc.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.owner}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const bytes = (await res.arrayBuffer()).byteLength;
    expect(res.status).toBe(200);
    expect(bytes).toBeLessThan(44_000);
  });

  it('list_brands and list_stories: all brands or one, status filter, newest first', async () => {
    const newest = await freshStory();
    const brands = await call('member', 'list_brands', {});
    expect(brands.structuredContent.brands.map((b: any) => b.brand_id)).toEqual(
      expect.arrayContaining(['acme.com', 'northwind.example', 'unverified.example']),
    );
    const all = await call('member', 'list_stories', {});
    const rows = all.structuredContent.stories as any[];
    expect([...new Set(rows.map((r) => r.brand_id))]).toEqual(
      expect.arrayContaining(['acme.com', 'northwind.example', 'unverified.example']),
    );
    const times = rows.map((r) => r.detected_at);
    expect(times).toEqual([...times].sort().reverse());
    expect(rows.find((r) => r.event_uri === newest)).toMatchObject({
      status: 'new',
      unlocked: false,
      assignee: null,
    });

    const one = await call('member', 'list_stories', { brand_id: 'acme.com' });
    expect(one.structuredContent.stories.every((r: any) => r.brand_id === 'acme.com')).toBe(true);
    const closed = await call('member', 'list_stories', { status: 'closed' });
    expect(closed.structuredContent.stories.every((r: any) => r.status === 'closed')).toBe(true);
    expect(closed.structuredContent.stories.map((r: any) => r.event_uri)).not.toContain(newest);
    const foreign = await call('member', 'list_stories', { brand_id: 'globex.com' });
    expect(foreign.isError).toBe(true);
    expect(foreign.structuredContent).toEqual({ error: 'not found', status: 404 });
  });

  it('list_stories pages with a cursor, like REST: every story once, newest first', async () => {
    const whole = await call('member', 'list_stories', { limit: 200 });
    const everyone = (whole.structuredContent.stories as any[]).map((r) => r.event_uri);
    expect(whole.structuredContent.next_cursor).toBeNull();
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const r = await call('member', 'list_stories', { limit: 2, ...(cursor && { cursor }) });
      expect(r.structuredContent.stories.length).toBeLessThanOrEqual(2);
      seen.push(...r.structuredContent.stories.map((s: any) => s.event_uri));
      cursor = r.structuredContent.next_cursor ?? undefined;
      if (!cursor) break;
    }
    expect(seen).toEqual(everyone);
    const bad = await call('member', 'list_stories', { cursor: 'not-a-cursor' });
    expect(bad.structuredContent).toEqual({
      error: 'cursor: is not a cursor this API returned',
      status: 400,
    });
  });

  it('get_story shows the teaser with unlocked=false; unlock_advisory uses the included unit, then offers checkout and never charges', async () => {
    // A brand of its own, whose included unit of the month no other test has used.
    const BRAND = 'unlock.northwind.example';
    await addBrand(svc.app, {
      accountId: w.accounts.agency,
      host: BRAND,
      name: 'Northwind',
      verified: true,
    });
    const freshStory = () => w.story(BRAND, n++);
    const first = await freshStory();
    const locked = await call('member', 'get_story', { brand_id: BRAND, event_uri: first });
    expect(locked.structuredContent.story.unlocked).toBe(false);
    expect(Object.keys(locked.structuredContent.story.advisory).sort()).toEqual([
      'assessment',
      'executive_summary',
      'urgency',
    ]);
    expect(locked.structuredContent.story.severity).toBeTruthy();

    const unlocked = await call('member', 'unlock_advisory', { brand_id: BRAND, event_uri: first });
    expect(unlocked.structuredContent).toMatchObject({ ok: true, counted: true, billed_eur: 0 });
    const full = await call('member', 'get_story', { brand_id: BRAND, event_uri: first });
    expect(full.structuredContent.story.unlocked).toBe(true);
    expect(full.structuredContent.story.advisory.phases.length).toBeGreaterThanOrEqual(3);

    // The month's unit is spent; the account has a subscription, yet nothing is metered.
    const second = await freshStory();
    const offer = await call('member', 'unlock_advisory', { brand_id: BRAND, event_uri: second });
    expect(offer.structuredContent).toMatchObject({ ok: false, counted: false, billed_eur: 0 });
    expect(offer.structuredContent.checkout_url).toMatch(/\/billing\/checkout\//);
    // The partner tool, in the same session, keeps to the same rule: it never charges.
    const partner = await call('owner', 'v1_trigger_advisory', { brand: BRAND, event_uri: second });
    expect(partner.structuredContent).toMatchObject({ ok: false, counted: false, billed_eur: 0 });
    expect(partner.structuredContent.checkout_url).toMatch(/\/billing\/checkout\//);
    const still = await call('member', 'get_story', { brand_id: BRAND, event_uri: second });
    expect(still.structuredContent.story.unlocked).toBe(false);
    const charged = await svc.app.db
      .selectFrom('billing_ledger as l')
      .innerJoin('stories as s', 's.id', 'l.story_id')
      .select('l.kind')
      .where('s.event_uri', '=', second)
      .execute();
    expect(charged).toEqual([]);
  });

  it('assign_action invites an unknown email and emails the action; validate_action is for the assignee only, comment to the audit trail', async () => {
    const story = await freshStory();
    // Unlock by the operator's key (REST), so this test does not depend on the unit.
    await svc.request('POST', '/v1/advisory', {
      key: w.keys.owner,
      body: { brand: BRAND, event_uri: story },
    });
    const assigned = await call('admin', 'assign_action', {
      brand_id: BRAND,
      event_uri: story,
      phase: 1,
      assignee: 'new.hire@northwind.example',
    });
    expect(assigned.structuredContent).toMatchObject({ ok: true, invited: true, phase: 1 });
    const mail = (await listOutbox(svc.app, 10)).find((e) => e.to === 'new.hire@northwind.example');
    expect(mail?.text).toContain('/action/');

    await call('admin', 'assign_action', {
      brand_id: BRAND,
      event_uri: story,
      phase: 2,
      assignee: 'member@northwind.example',
    });
    const notMine = await call('owner', 'validate_action', {
      brand_id: BRAND,
      event_uri: story,
      phase: 2,
    });
    expect(notMine.isError).toBe(true);
    expect(notMine.structuredContent.status).toBe(409);
    const done = await call('member', 'validate_action', {
      brand_id: BRAND,
      event_uri: story,
      phase: 2,
      comment: 'Statement sent to the press desk',
    });
    expect(done.structuredContent).toMatchObject({ ok: true, phase: 2, status: 'in_progress' });
    const brand = await requireBrandByHost(svc.app, BRAND);
    const entry = (await listAudit(svc.app, brand.id, 20)).find(
      (e) => e.event_uri === story && e.action === 'phase.done',
    );
    expect(entry?.details).toMatchObject({ comment: 'Statement sent to the press desk' });
  });

  it('add_context proposes a pending version with a diff; apply_advisory_update is for the owner only', async () => {
    const story = await freshStory();
    await svc.request('POST', '/v1/advisory', {
      key: w.keys.owner,
      body: { brand: BRAND, event_uri: story },
    });
    const args = { brand_id: BRAND, event_uri: story };
    const added = await call('member', 'add_context', {
      ...args,
      context: 'The product was never sold in Europe.',
    });
    expect(added.structuredContent.advisory_pending.status).toBe('generating');
    await svc.app.jobs.drain();
    const pending = await call('member', 'get_story', args);
    expect(pending.structuredContent.story.advisory_pending).toMatchObject({
      status: 'ready',
      diff: expect.any(Array),
    });

    const byAdmin = await call('admin', 'apply_advisory_update', args);
    expect(byAdmin.isError).toBe(true);
    // The one 403 text of spec 7 on every door; the reason beside it.
    expect(byAdmin.structuredContent).toEqual({
      error: "outside this key's brand scope",
      status: 403,
      reason: 'needs the owner role',
    });
    // The text is the structured content: hosts that show the model only the text still
    // tell it the real reason.
    expect(JSON.parse(byAdmin.content[0]!.text)).toEqual(byAdmin.structuredContent);
    const byOwner = await call('owner', 'apply_advisory_update', args);
    expect(byOwner.structuredContent).toMatchObject({ ok: true, applied: true });
    const after = await call('member', 'get_story', args);
    expect(after.structuredContent.story.advisory_pending).toBeUndefined();
  });

  it('bad arguments are a tool error with status 400, not a protocol failure', async () => {
    const r = await call('member', 'get_story', { brand_id: BRAND });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toEqual({ error: 'event_uri: is required', status: 400 });
  });

  it('v1_ tools act with the user role: what the same role of key gets over REST', async () => {
    const mcp = await call('member', 'v1_list_brands', {});
    const rest = await svc.request('GET', '/v1/brands', { key: w.keys.member });
    expect(mcp.structuredContent).toEqual(rest.body);
    const refused = await call('member', 'v1_dismiss_advisory_proposal', {
      brand: BRAND,
      event_uri: w.stories.northwind,
    });
    expect(refused.structuredContent).toEqual({
      error: "outside this key's brand scope",
      status: 403,
      reason: 'needs the owner or admin role',
    });
  });

  it('create_share: a guests share is full by default; a retune keeps what it omits', async () => {
    const args = { brand_id: BRAND, event_uri: await freshStory() };
    const created = await call('member', 'create_share', { ...args, access: 'guests' });
    expect(created.structuredContent).toMatchObject({ access: 'guests', mode: 'full' });
    const retuned = await call('member', 'create_share', { ...args, listed: false });
    expect(retuned.structuredContent).toMatchObject({ access: 'guests', mode: 'full' });
  });

  it('add_context works again after a dismiss', async () => {
    const story = await freshStory();
    await svc.request('POST', '/v1/advisory', {
      key: w.keys.owner,
      body: { brand: BRAND, event_uri: story },
    });
    const args = { brand_id: BRAND, event_uri: story };
    for (const i of [1, 2, 3]) {
      const added = await call('member', 'add_context', { ...args, context: `Fact ${i}.` });
      expect(added.isError).toBeUndefined();
      await svc.app.jobs.drain();
      const dismissed = await call('owner', 'v1_dismiss_advisory_proposal', {
        brand: BRAND,
        event_uri: story,
      });
      expect(dismissed.structuredContent).toMatchObject({ ok: true, dismissed: true });
    }
  });
});
