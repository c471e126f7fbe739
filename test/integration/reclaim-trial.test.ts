import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { createKey } from '../../src/domain/api-key-admin.js';
import { addBrand } from '../../src/domain/brands.js';
import { grantDelegation, revokeDelegation } from '../../src/domain/delegations.js';
import { listOutbox } from '../../src/email/outbox.js';
import { startService, type TestService } from '../support/harness.js';
import { manualClock } from '../support/manual-clock.js';
import { signIn } from '../support/oauth-browser.js';
import { PortalClient } from '../support/portal-client.js';
import { seedWorld, type World } from '../support/world.js';

/**
 * The 7-day reclaim trial of a client account its last partner dropped: the partner
 * plan's working rights on its own brands through every door, told by email and in the
 * portal, and its own plan again when the (moved) clock passes the end, nothing deleted.
 */
let svc: TestService;
let w: World;
const clock = manualClock();
const PASSWORD = 'correct horse battery';
const DAY = 86_400_000;

beforeAll(async () => {
  // The client's own plan includes no unlock: one during the trial is the partner plan's.
  svc = await startService({ INCLUDED_UNITS_PRO: '0' }, { runJobs: false, clock });
  w = await seedWorld(svc.app);
});
afterAll(() => svc.close());

/** A pro client with an owner, an admin and a member, one verified brand delegated to the agency. */
async function delegatedClient(host: string) {
  const id = await createAccount(svc.app, host, 'pro');
  await addUser(svc.app, {
    accountId: id,
    email: `owner@${host}`,
    password: PASSWORD,
    role: 'owner',
  });
  await addUser(svc.app, {
    accountId: id,
    email: `admin@${host}`,
    password: PASSWORD,
    role: 'admin',
  });
  await addUser(svc.app, {
    accountId: id,
    email: `member@${host}`,
    password: PASSWORD,
    role: 'member',
  });
  await addBrand(svc.app, { accountId: id, host, name: 'Reclaimo', verified: true });
  await grantDelegation(svc.app, {
    partnerId: w.accounts.agency,
    clientId: id,
    host,
    actor: 'test',
  });
  return id;
}

/** The tool names an MCP session of this OAuth token is offered. */
async function mcpTools(accessToken: string) {
  const client = new Client({ name: 'reclaim-trial-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    }),
  );
  const { tools } = await client.listTools();
  await client.close();
  return tools.map((t) => t.name);
}

/** An owner key made by an operator (`brs key create`), whatever the account's plan. */
async function operatorKey(accountId: string, name: string) {
  return (
    await createKey(svc.app, { accountId, role: 'owner', scope: null, name, actor: 'operator' })
  ).key;
}

/** Creates an API key in the portal and reads it off the page that shows it once. */
async function keyFromPortal(c: PortalClient, name: string) {
  await c.get('/app/keys');
  const r = await c.post('/app/keys', { name, role: 'owner', scope: 'full' });
  expect(r.status, r.html).toBe(200);
  return /<code class="secret">(brs_[^<]+)<\/code>/.exec(r.html)![1]!;
}

describe('reclaim trial', () => {
  it('drop → handed_back with trial_ends_at → email → partner plan on own brands → +7 days: own plan, keys 403, nothing deleted', async () => {
    const host = 'reclaim.example';
    const client = await delegatedClient(host);
    const [s1, s2] = [await w.story(host, 1), await w.story(host, 2)];
    const owner = new PortalClient(svc.url);
    expect((await owner.signIn(`owner@${host}`, PASSWORD)).status).toBe(303);
    expect((await owner.get('/app')).html).not.toContain('Trial of the');
    // A key made before, by an operator: the portal makes none on a plan without API
    // access. The pro plan has no API access.
    const before = await operatorKey(client, 'before the trial');
    expect((await svc.request('GET', '/v1/brands', { key: before })).status).toBe(403);

    const dropped = await svc.request('DELETE', '/v1/delegations', {
      key: w.keys.admin,
      query: { brand: host },
    });
    const ends = new Date(clock.now().getTime() + 7 * DAY).toISOString();
    expect(dropped.body).toEqual({
      ok: true,
      brand: host,
      status: 'dropped',
      client_account: 'handed_back',
      trial_ends_at: ends,
    });

    // Told by email, owners and admins, with the end date.
    const mails = (await listOutbox(svc.app, 100)).filter((m) => m.to.endsWith(`@${host}`));
    expect(mails.map((m) => m.to).sort()).toEqual([`admin@${host}`, `owner@${host}`]);
    for (const m of mails) {
      expect(m.subject).toContain(ends.slice(0, 10));
      expect(m.text).toContain(`Until ${ends.slice(0, 10)} ${ends.slice(11, 16)} UTC`);
      expect(m.text).toContain('nothing is deleted');
    }

    // Told in the portal, on every page, with the days left.
    const banner = `Trial of the partner plan: 7 days left (ends ${ends.slice(0, 10)})`;
    expect((await owner.get('/app')).html).toContain(banner);
    expect((await owner.get('/app/team')).html).toContain(
      'of 25 seats</strong> used on the partner plan',
    );
    const member = new PortalClient(svc.url);
    await member.signIn(`member@${host}`, PASSWORD);
    expect((await member.get('/app')).html).toContain(banner);

    // The partner plan's API access: a key from before and one made during the trial.
    const during = await keyFromPortal(owner, 'during the trial');
    for (const key of [before, during]) {
      const r = await svc.request('GET', '/v1/stories', { key, query: { brand: host } });
      expect(r.status, r.text).toBe(200);
      expect(r.body.stories.map((s: { event_uri: string }) => s.event_uri)).toContain(s1);
    }
    // The signed-in user's MCP session offers the partner plan's v1_ tools.
    const { access_token } = await signIn(svc.url, { email: `owner@${host}`, password: PASSWORD });
    expect(await mcpTools(access_token)).toContain('v1_list_stories');
    const note = await svc.request('POST', '/v1/brand-note', {
      key: during,
      body: { brand: host, event_uri: s2, text: 'Our statement, over the API.' },
    });
    expect(note.status, note.text).toBe(200);

    // The working rights in the portal: unlock, assign, notes, shares.
    const path = `/app/stories/${host}/${s1}`;
    await owner.get(path);
    const act = async (action: string, fields: Record<string, string> = {}) =>
      (await owner.post(`${path}/${action}`, fields)).location;
    expect(await act('unlock')).toBe(`${path}?done=unlocked`);
    expect(await act('assign-story', { assignee: `member@${host}` })).toBe(`${path}?done=assigned`);
    expect(await act('note', { text: 'Our official statement.' })).toBe(`${path}?done=note`);
    expect(await act('share', { access: 'public', mode: 'briefing' })).toBe(`${path}?done=shared`);
    const shareUrl = /Shared at <a href="([^"]+)"/.exec((await owner.get(path)).html)![1]!;
    expect((await fetch(shareUrl)).status).toBe(200);

    // Six days on: one day left.
    clock.advance(6 * DAY);
    expect((await owner.get('/app')).html).toContain(
      `Trial of the partner plan: 1 day left (ends ${ends.slice(0, 10)})`,
    );

    // The trial ends: the account's own plan, at every door at once.
    clock.advance(DAY + 60_000);
    for (const key of [before, during]) {
      const r = await svc.request('GET', '/v1/stories', { key, query: { brand: host } });
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ error: "outside this key's brand scope" });
    }
    const tools = await mcpTools(access_token);
    expect(tools).toContain('get_story');
    expect(tools).not.toContain('v1_list_stories');
    const again = new PortalClient(svc.url);
    await again.signIn(`owner@${host}`, PASSWORD);
    const home = await again.get('/app');
    expect(home.status).toBe(200);
    expect(home.html).not.toContain('Trial of the');
    expect((await again.get('/app/team')).html).toContain(
      'of 10 seats</strong> used on the pro plan',
    );
    expect((await again.get('/app/keys')).html).toContain('Your plan (pro) has no API access');

    // Nothing deleted: keys (not revoked), the unlock, the assignment, notes, the share.
    const keys = await svc.app.db
      .selectFrom('api_keys')
      .select(['name', 'revoked_at'])
      .where('account_id', '=', client)
      .orderBy('name')
      .execute();
    expect(keys).toEqual([
      { name: 'before the trial', revoked_at: null },
      { name: 'during the trial', revoked_at: null },
    ]);
    const story = await again.get(path);
    expect(story.html).toContain('Our official statement.');
    expect(story.html).not.toContain('Unlock the full advisory');
    expect(story.html).toContain(`member@${host}`);
    expect((await again.get(`/app/stories/${host}/${s2}`)).html).toContain(
      'Our statement, over the API.',
    );
    expect((await fetch(shareUrl)).status).toBe(200);
    const account = await svc.app.db
      .selectFrom('accounts')
      .select(['plan', 'state'])
      .where('id', '=', client)
      .executeTakeFirstOrThrow();
    expect(account).toEqual({ plan: 'pro', state: 'handed_back' });
  });

  it('a client that still has another partner is retained: no trial, no email', async () => {
    const host = 'retained.example';
    const client = await delegatedClient(host);
    const second = await createAccount(svc.app, 'Second Agency', 'agency');
    await addBrand(svc.app, {
      accountId: client,
      host: 'retained2.example',
      name: undefined,
      verified: true,
    });
    await grantDelegation(svc.app, {
      partnerId: second,
      clientId: client,
      host: 'retained2.example',
      actor: 'test',
    });
    const r = await svc.request('DELETE', '/v1/delegations', {
      key: w.keys.owner,
      query: { brand: host },
    });
    expect(r.body).toEqual({
      ok: true,
      brand: host,
      status: 'dropped',
      client_account: 'retained',
      trial_ends_at: null,
    });
    expect((await listOutbox(svc.app, 200)).some((m) => m.to.endsWith(`@${host}`))).toBe(false);
    const c = new PortalClient(svc.url);
    await c.signIn(`owner@${host}`, PASSWORD);
    expect((await c.get('/app')).html).not.toContain('Trial of the');
  });

  it('a client revoking its last partner keeps its own plan: no trial (it chose to leave)', async () => {
    const host = 'leaver.example';
    const client = await delegatedClient(host);
    await revokeDelegation(svc.app, {
      clientId: client,
      partnerId: w.accounts.agency,
      host,
      actor: 'user:test',
    });
    const account = await svc.app.db
      .selectFrom('accounts')
      .select(['state', 'trial_ends_at', 'trial_plan'])
      .where('id', '=', client)
      .executeTakeFirstOrThrow();
    expect(account).toEqual({ state: 'active', trial_ends_at: null, trial_plan: null });
    const c = new PortalClient(svc.url);
    await c.signIn(`owner@${host}`, PASSWORD);
    expect((await c.get('/app')).html).not.toContain('Trial of the');
    expect((await c.get('/app/keys')).html).toContain('Your plan (pro) has no API access');
    const key = await operatorKey(client, 'no trial');
    expect((await svc.request('GET', '/v1/brands', { key })).status).toBe(403);
  });

  it('a new delegation during the trial ends it: the account is managed again', async () => {
    const host = 'comeback.example';
    const client = await delegatedClient(host);
    const dropped = await svc.request('DELETE', '/v1/delegations', {
      key: w.keys.owner,
      query: { brand: host },
    });
    expect(dropped.body.client_account).toBe('handed_back');
    await grantDelegation(svc.app, {
      partnerId: w.accounts.agency,
      clientId: client,
      host,
      actor: 'test',
    });
    const c = new PortalClient(svc.url);
    await c.signIn(`owner@${host}`, PASSWORD);
    expect((await c.get('/app')).html).not.toContain('Trial of the');
  });
});
