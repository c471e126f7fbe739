import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { addBrand, requireBrandByHost } from '../../src/domain/brands.js';
import { importStory } from '../../src/domain/import-story.js';
import { startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';
import { startReceiver } from '../support/receiver.js';
import { article } from '../support/world.js';

/** The admin pages at work: webhooks (secret once, rotate, retry), keys (revoke), team. */
let svc: TestService;
let hooks: Awaited<ReturnType<typeof startReceiver>>;
let c: PortalClient;
let event: string;

beforeAll(async () => {
  hooks = await startReceiver();
  svc = await startService(
    { FETCH_ALLOW_HOSTS: `127.0.0.1:${hooks.port}`, MENTION_STREAM_MS: '50' },
    { runJobs: false },
  );
  const acme = await createAccount(svc.app, 'Acme', 'partner');
  await addUser(svc.app, {
    accountId: acme,
    email: 'admin@acme.example',
    password: 'correct horse battery',
    role: 'admin',
  });
  await addBrand(svc.app, { accountId: acme, host: 'acme.example', name: 'Acme', verified: true });
  const brand = await requireBrandByHost(svc.app, 'acme.example');
  event = (await importStory(svc.app, { brand, article: article('Acme', 1), actor: 'operator' }))
    .event_uri;
  c = new PortalClient(svc.url);
  await c.signIn('admin@acme.example', 'correct horse battery');
});
afterAll(async () => {
  await hooks.close();
  await svc.close();
});

describe('webhooks page', () => {
  it('adds an endpoint showing its secret once, delivers, retries a failed delivery, rotates', async () => {
    await c.get('/app/webhooks');
    const added = await c.post('/app/webhooks', {
      url: hooks.url('/hook'),
      events: 'brand_note.published',
    });
    expect(added.status).toBe(200);
    const secret = /<code class="secret">(whsec_[^<]+)<\/code>/.exec(added.html)?.[1];
    expect(secret).toBeDefined();
    expect((await c.get('/app/webhooks')).html).not.toContain(secret!);

    // An event: the Brand Note, published from the story page.
    await c.get(`/app/stories/acme.example/${event}`);
    expect(
      (await c.post(`/app/stories/acme.example/${event}/note`, { text: 'Our statement.' })).status,
    ).toBe(303);
    await svc.app.jobs.drain();
    expect(hooks.hits).toHaveLength(1);
    expect((await c.get('/app/webhooks')).html).toContain('delivered');

    // A delivery that gave up (three days of failures) can be sent again, once.
    await svc.app.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', last_error: 'HTTP 500' })
      .execute();
    const [delivery] = await svc.app.db.selectFrom('webhook_deliveries').select('id').execute();
    const page = await c.get('/app/webhooks');
    expect(page.html).toContain('Retry');
    expect((await c.post('/app/webhooks/retry', { id: delivery!.id })).location).toBe(
      '/app/webhooks?done=retried',
    );
    await svc.app.jobs.drain();
    expect(hooks.hits).toHaveLength(2);
    expect(hooks.hits[1]!.headers['webhook-id']).toBe(hooks.hits[0]!.headers['webhook-id']);
    const again = await c.post('/app/webhooks/retry', { id: delivery!.id });
    expect(again.status).toBe(409);
    expect(again.html).toContain('Delivery: only a failed delivery is sent again');

    const [endpoint] = await svc.app.db.selectFrom('webhook_endpoints').select('id').execute();
    const rotated = await c.post('/app/webhooks/rotate', { id: endpoint!.id });
    const next = /<code class="secret">(whsec_[^<]+)<\/code>/.exec(rotated.html)?.[1];
    expect(next).toBeDefined();
    expect(next).not.toBe(secret);
  });
});

describe('keys page', () => {
  it('creates a key shown once, and revokes it: REST refuses it on the next call', async () => {
    await c.get('/app/keys');
    const r = await c.post('/app/keys', { name: 'CRM', role: 'member', scope: 'full' });
    const key = /<code class="secret">(brs_[^<]+)<\/code>/.exec(r.html)?.[1];
    expect(key).toBeDefined();
    const call = () => fetch(`${svc.url}/v1/brands`, { headers: { 'x-api-key': key! } });
    expect((await call()).status).toBe(200);
    const listed = await c.get('/app/keys');
    expect(listed.html).not.toContain(key!);
    expect(listed.html).toContain('CRM');
    const id = /name="id" value="(key_[^"]+)"/.exec(listed.html)![1]!;
    // Asked first, saying what follows; nothing happens until it is confirmed.
    const asked = await c.post('/app/keys/revoke', { id, name: 'CRM' });
    expect(asked.status).toBe(200);
    expect(asked.html).toContain('<h1>Revoke the key “CRM”?</h1>');
    expect(asked.html).toContain('refused from the next one on (401)');
    expect(asked.html).toContain('<input type="hidden" name="confirmed" value="yes">');
    expect(asked.html).toContain('<a href="/app/keys">Keep it and go back</a>');
    expect((await call()).status).toBe(200);
    const revoked = await c.post('/app/keys/revoke', { id, confirmed: 'yes' });
    expect(revoked.location).toBe('/app/keys?done=key-revoked');
    expect((await call()).status).toBe(401);
  });
});

describe('keys page on a plan without API access', () => {
  it('says keys come with the partner and agency plans, offers no form, and refuses one made anyway', async () => {
    const pro = await createAccount(svc.app, 'Pro Co', 'pro');
    await addUser(svc.app, {
      accountId: pro,
      email: 'owner@pro.example',
      password: 'correct horse battery',
      role: 'owner',
    });
    const p = new PortalClient(svc.url);
    await p.signIn('owner@pro.example', 'correct horse battery');
    const page = await p.get('/app/keys');
    expect(page.html).toContain('Your plan (pro) has no API access');
    expect(page.html).not.toContain('Create the key');
    const made = await p.post('/app/keys', { name: 'x', role: 'owner', scope: 'full' });
    expect(made.status).toBe(403);
    expect(made.html).toContain('needs the partner or agency plan');
    expect(
      await svc.app.db.selectFrom('api_keys').select('id').where('account_id', '=', pro).execute(),
    ).toEqual([]);
  });
});

describe('story page', () => {
  it('offers context only once unlocked; a phase reads assigned once assigned, and names who marked it done', async () => {
    // An account and brand of its own: the brand's included unit unlocks its story.
    const account = await createAccount(svc.app, 'Story Co', 'partner');
    await addUser(svc.app, {
      accountId: account,
      email: 'owner@storyco.example',
      password: 'correct horse battery',
      role: 'owner',
    });
    await addBrand(svc.app, {
      accountId: account,
      host: 'storyco.example',
      name: 'StoryCo',
      verified: true,
    });
    const brand = await requireBrandByHost(svc.app, 'storyco.example');
    const own = await importStory(svc.app, {
      brand,
      // A post read as it is: its author is kept, and the unlocked sources show it.
      article: { ...article('StoryCo', 1), author: 'ann@social.example' },
      actor: 'operator',
    });
    const c = new PortalClient(svc.url);
    await c.signIn('owner@storyco.example', 'correct horse battery');
    const page = `/app/stories/storyco.example/${encodeURIComponent(own.event_uri)}`;
    const locked = (await c.get(page)).html;
    expect(locked).toContain('Context can be added once the advisory is unlocked');
    expect(locked).not.toContain('name="context"');
    expect((await c.post(`${page}/unlock`)).status).toBe(303);
    expect((await c.get(page)).html).toContain('name="context"');
    expect((await c.get(page)).html).toContain('Example News, by ann@social.example');
    // The due-date picker offers no day before today.
    expect((await c.get(page)).html).toMatch(/name="due" type="date" min="\d{4}-\d{2}-\d{2}"/);
    // The page says which generator wrote the advisory (issue 42).
    expect((await c.get(page)).html).toContain(
      '<dt>Written by</dt><dd>the built-in generator</dd>',
    );
    expect((await c.get(page)).html).toContain(
      'Private to your team: it guides the proposed update, and neither the advisory nor a shared page quotes it.',
    );
    expect((await c.get(page)).html).not.toContain('This story is shared');
    // Once shared, the context form says the applied update shows on the shared page too.
    await c.post(`${page}/share`, { access: 'public', mode: 'briefing' });
    expect((await c.get(page)).html).toMatch(
      /This story is shared: once applied, the update shows on <a href="[^"]+\/s\/[^"]+">its shared page<\/a> too, to anyone with the link\./,
    );

    const badge = (html: string) =>
      /<strong>Phase 1: [^<]*<\/strong> <span class="badge">([a-z]+)<\/span>/.exec(html)?.[1];
    expect(badge((await c.get(page)).html)).toBe('open');
    await c.post(`${page}/assign-phase`, { phase: '1', assignee: 'owner@storyco.example' });
    expect(badge((await c.get(page)).html)).toBe('assigned');
    await c.post(`${page}/phase-done`, { phase: '1', comment: 'Done' });
    const done = (await c.get(page)).html;
    expect(badge(done)).toBe('done');
    expect(done).toContain('done by owner@storyco.example');
    expect(done).not.toContain('user:usr_');

    // Deleting the Brand Note is asked first.
    expect((await c.post(`${page}/note`, { text: 'Our statement.' })).status).toBe(303);
    const asked = await c.post(`${page}/delete-note`);
    expect(asked.html).toContain('<h1>Delete the Brand Note?</h1>');
    expect((await c.get(page)).html).toContain('Our statement.');
    expect((await c.post(`${page}/delete-note`, { confirmed: 'yes' })).location).toBe(
      `${page}?done=note-deleted`,
    );
    expect((await c.get(page)).html).not.toContain('<blockquote>Our statement.</blockquote>');
  });
});

describe('activity page', () => {
  it('tells each change as a sentence naming who did it, with times that say their zone', async () => {
    await c.get('/app/keys');
    const made = await c.post('/app/keys', { name: 'Desk', role: 'admin', scope: 'full' });
    const key = /<code class="secret">(brs_[^<]+)<\/code>/.exec(made.html)![1]!;
    const assigned = await fetch(`${svc.url}/v1/story/assign`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        brand: 'acme.example',
        event_uri: event,
        assignee: 'admin@acme.example',
      }),
    });
    expect(assigned.status).toBe(200);

    const page = (await c.get('/app/activity')).html;
    expect(page).toContain('admin@acme.example created an API key (admin).');
    expect(page).toContain('API key “Desk” assigned the story to admin@acme.example.');
    expect(page).toContain('An operator found the story.');
    expect(page).toMatch(/<time datetime="[^"]+">\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC<\/time>/);
    // No internal label or id in what people read.
    expect(page).not.toMatch(/user:usr_|key:key_|story\.created|api_key\.created/);
  });
});

describe('team page', () => {
  it('invites a teammate who joins by choosing a password from the email', async () => {
    const row = (html: string) => /<tr><td>new@acme\.example<\/td>.*?<\/tr>/s.exec(html)?.[0];
    await c.get('/app/team');
    expect((await c.post('/app/team/invite', { email: 'new@acme.example' })).location).toBe(
      '/app/team?done=invited',
    );
    const team = await c.get('/app/team');
    expect(team.html).toContain('new@acme.example');
    expect(row(team.html)).toContain('>invited<');
    const mail = await svc.app.db
      .selectFrom('outgoing_emails')
      .select('text_body')
      .where('to_address', '=', 'new@acme.example')
      .executeTakeFirstOrThrow();
    const link = new RegExp(`${svc.url}(/reset/[^\\s]+)`).exec(mail.text_body)![1]!;
    const invitee = new PortalClient(svc.url);
    await invitee.get(link);
    // Choosing the password joins the team and signs them in: no second sign-in.
    expect((await invitee.post(link, { password: 'my own password' })).location).toBe(
      '/app?done=joined',
    );
    expect((await invitee.get('/app?done=joined')).html).toContain(
      'you are in the team and signed in',
    );
    expect((await invitee.signIn('new@acme.example', 'my own password')).status).toBe(303);
    // Their row says active now (other tests may have invited others meanwhile).
    expect(row((await c.get('/app/team')).html)).toMatch(/<td>active<\/td>/);
  });
});

describe('brand verification', () => {
  it('verifies a brand through a link sent to an address on its domain', async () => {
    await c.get('/app/brands');
    expect((await c.post('/app/brands', { host: 'fresh.example', name: 'Fresh' })).status).toBe(
      303,
    );
    const page = await c.get('/app/brands');
    expect(page.html).toContain('Verify with an address on fresh.example');
    const wrong = await c.post('/app/brands/verify', {
      brand: 'fresh.example',
      email: 'me@gmail.com',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain('Email: must be an address on fresh.example');
    expect(
      (await c.post('/app/brands/verify', { brand: 'fresh.example', email: 'press@fresh.example' }))
        .location,
    ).toBe('/app/brands?done=verify-sent');
    const mail = await svc.app.db
      .selectFrom('outgoing_emails')
      .select('text_body')
      .where('to_address', '=', 'press@fresh.example')
      .executeTakeFirstOrThrow();
    const link = new RegExp(`${svc.url}(/verify-brand/[^\\s]+)`).exec(mail.text_body)![1]!;
    // Whoever holds the mailbox opens it, signed in or not; opening only asks.
    const mailbox = new PortalClient(svc.url);
    const asked = await mailbox.get(link);
    expect(asked.status).toBe(200);
    expect(asked.html).toContain('Is fresh.example yours?');
    expect((await requireBrandByHost(svc.app, 'fresh.example')).verified).toBe(0);
    expect((await mailbox.post(link, {}, { csrf: false })).status).toBe(403);
    const opened = await mailbox.post(link);
    expect(opened.status).toBe(200);
    expect(opened.html).toContain('fresh.example is verified');
    const after = await c.get('/app/brands');
    expect(after.html).not.toContain('Verify with an address on fresh.example');
    const brand = await requireBrandByHost(svc.app, 'fresh.example');
    expect(brand.verified).toBe(1);
    expect((await new PortalClient(svc.url).get('/verify-brand/forged.token')).status).toBe(400);
    // A mail provider's brand is not verified by any mailbox there.
    expect((await c.post('/app/brands', { host: 'gmail.com', name: 'Gmail' })).status).toBe(303);
    const provider = await c.post('/app/brands/verify', {
      brand: 'gmail.com',
      email: 'anyone@gmail.com',
    });
    expect(provider.status).toBe(400);
    expect(provider.html).toContain('gmail.com is a mail provider');
  });
});

describe('partners page', () => {
  it('makes an invitation link for a client, lists it with its state, and revokes it', async () => {
    const agency = await createAccount(svc.app, 'Northwind Agency', 'agency');
    await addUser(svc.app, {
      accountId: agency,
      email: 'admin@northwind.example',
      password: 'correct horse battery',
      role: 'admin',
    });
    const a = new PortalClient(svc.url);
    await a.signIn('admin@northwind.example', 'correct horse battery');
    // The partner plan does not invite clients: the agency plan does.
    expect((await c.get('/app/partners')).html).not.toContain('Invite a client');
    await a.get('/app/partners');
    const made = await a.post('/app/partners/invite', {
      brand: 'client.example',
      return_url: 'https://app.acme.example/clients',
    });
    expect(made.status).toBe(200);
    const link = /<code class="secret">([^<]*\/onboard\/inv_[^<]+)<\/code>/.exec(made.html)![1]!;
    const listed = await a.get('/app/partners');
    // A pending invitation's link can be read again, to send once more: the same link.
    expect(listed.html).toContain(
      `<td>client.example<details class="small"><summary>Its link, to send again</summary><code class="secret">${link}</code></details></td><td>pending</td>`,
    );
    const id = /name="id" value="([a-z]+_[^"]+)"/.exec(listed.html)![1]!;
    // Another account cannot revoke it.
    await c.get('/app/partners');
    expect((await c.post('/app/partners/invites/revoke', { id, confirmed: 'yes' })).status).toBe(
      404,
    );
    const asked = await a.post('/app/partners/invites/revoke', { id, brand: 'client.example' });
    expect(asked.html).toContain('<h1>Revoke the invitation for client.example?</h1>');
    expect((await a.post('/app/partners/invites/revoke', { id, confirmed: 'yes' })).location).toBe(
      '/app/partners?done=invite-revoked',
    );
    const revoked = (await a.get('/app/partners')).html;
    expect(revoked).toMatch(/<td>client\.example<\/td><td>revoked<\/td>/);
    expect(revoked).not.toContain(link);
  });
});

describe('roles', () => {
  it('owners change roles, which take effect on the next request; the last owner stays', async () => {
    // An account of its own: demoting its admin must not touch the other tests' admin.
    const roles = await createAccount(svc.app, 'Roles', 'partner');
    const person = (email: string, role: 'owner' | 'admin') =>
      addUser(svc.app, {
        accountId: roles,
        email,
        password: 'correct horse battery',
        role,
      });
    await person('owner@roles.example', 'owner');
    await person('admin@roles.example', 'admin');
    const owner = new PortalClient(svc.url);
    await owner.signIn('owner@roles.example', 'correct horse battery');
    const admin = new PortalClient(svc.url);
    await admin.signIn('admin@roles.example', 'correct horse battery');
    // An admin may not change roles.
    await admin.get('/app/team');
    expect(
      (await admin.post('/app/team/role', { email: 'owner@roles.example', role: 'member' })).status,
    ).toBe(403);
    await owner.get('/app/team');
    // Asked first, saying what the role may do; nothing changes until confirmed.
    const asked = await owner.post('/app/team/role', {
      email: 'admin@roles.example',
      role: 'member',
    });
    expect(asked.html).toContain('<h1>Make admin@roles.example a member?</h1>');
    expect(asked.html).toContain('no longer manages the team, keys, webhooks or billing');
    expect((await admin.get('/app/keys')).html).not.toContain(
      'Only owners and admins manage API keys',
    );
    expect(
      (
        await owner.post('/app/team/role', {
          email: 'admin@roles.example',
          role: 'member',
          confirmed: 'yes',
        })
      ).location,
    ).toBe('/app/team?done=role');
    expect((await admin.get('/app/keys')).html).toContain('Only owners and admins manage API keys');
    const last = await owner.post('/app/team/role', {
      email: 'owner@roles.example',
      role: 'admin',
      confirmed: 'yes',
    });
    expect(last.status).toBe(409);
    expect(last.html).toContain('Role: the account needs an owner');
  });
});

describe('share settings and guests', () => {
  it('shares a story with guests, adds and removes one; the settings show as saved', async () => {
    const path = `/app/stories/acme.example/${event}`;
    const before = await c.get(path);
    expect(before.html).toContain('Not shared.');
    // How the coverage speaks of Acme ("a product recall after injuries"), per story and source.
    expect(before.html).toMatch(
      /<dt>Sentiment<\/dt><dd><span title="[^"]+">sentiment −0\.\d\d \(negative\)<\/span><\/dd>/,
    );
    expect((await c.post(`${path}/share`, { access: 'guests', mode: 'full' })).location).toBe(
      `${path}?done=shared`,
    );
    const shared = await c.get(path);
    expect(shared.html).toMatch(/Shared at <a href="http:\/\/127\.0\.0\.1:\d+\/s\/[^"]+"/);
    expect(shared.html).toContain('<option value="guests" selected>');
    expect(shared.html).toContain('<option value="full" selected>');
    expect((await c.post(`${path}/add-guest`, { email: 'Journalist@Press.example' })).status).toBe(
      303,
    );
    expect((await c.get(path)).html).toContain('journalist@press.example');
    // Asked first; the guest stays until it is confirmed.
    const asked = await c.post(`${path}/remove-guest`, { email: 'journalist@press.example' });
    expect(asked.status).toBe(200);
    expect(asked.html).toContain('<h1>Remove journalist@press.example from the share?</h1>');
    expect((await c.get(path)).html).toContain('journalist@press.example');
    expect(
      (
        await c.post(`${path}/remove-guest`, {
          email: 'journalist@press.example',
          confirmed: 'yes',
        })
      ).status,
    ).toBe(303);
    expect((await c.get(path)).html).toContain('No guests yet.');
    // A public share above the briefing is refused, as over the API.
    const refused = await c.post(`${path}/share`, { access: 'public', mode: 'full' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('Mode: a public share shows at most the briefing');

    // Stopping is asked first; then the link answers "not found", and a new share has a new link.
    const url = /Shared at <a href="(http[^"]+)"/.exec((await c.get(path)).html)![1]!;
    expect((await fetch(url)).status).toBe(200);
    const stop = await c.post(`${path}/stop-sharing`);
    expect(stop.html).toContain('<h1>Stop sharing this story?</h1>');
    expect((await fetch(url)).status).toBe(200);
    expect((await c.post(`${path}/stop-sharing`, { confirmed: 'yes' })).location).toBe(
      `${path}?done=share-stopped`,
    );
    const stopped = (await c.get(path)).html;
    expect(stopped).toContain('Not shared.');
    expect(stopped).toContain('admin@acme.example stopped sharing the story.');
    expect(stopped).toContain('admin@acme.example shared the story (invited guests, full).');
    expect((await fetch(url)).status).toBe(404);
    expect((await c.post(`${path}/stop-sharing`, { confirmed: 'yes' })).status).toBe(404);
    await c.post(`${path}/share`, { access: 'public', mode: 'briefing' });
    const again = /Shared at <a href="(http[^"]+)"/.exec((await c.get(path)).html)![1]!;
    expect(again).not.toBe(url);
    expect((await fetch(again)).status).toBe(200);
  });
});

describe('action links', () => {
  it('an assignment link marks nothing once the phase is given to someone else', async () => {
    const path = `/app/stories/acme.example/${event}`;
    await c.get(path);
    await c.post(`${path}/unlock`);
    expect(
      (
        await c.post(`${path}/assign-phase`, {
          phase: '1',
          assignee: 'bob@acme.example',
          invite: 'on',
        })
      ).status,
    ).toBe(303);
    const mail = await svc.app.db
      .selectFrom('outgoing_emails')
      .select('text_body')
      .where('to_address', '=', 'bob@acme.example')
      .executeTakeFirstOrThrow();
    const link = new RegExp(`${svc.url}(/action/[^\\s]+)`).exec(mail.text_body)![1]!;
    const bob = new PortalClient(svc.url);
    expect((await bob.get(link)).html).toContain('Mark done');
    expect(
      (
        await c.post(`${path}/assign-phase`, {
          phase: '1',
          assignee: 'carol@acme.example',
          invite: 'on',
        })
      ).status,
    ).toBe(303);
    const late = await bob.post(link, {});
    expect(late.status).toBe(404);
    expect((await c.get(path)).html).toMatch(
      /Phase 1: [^<]+<\/strong> <span class="badge">assigned<\/span>/,
    );
  });
});

describe('an address with no page', () => {
  it('under /app answers a page a person reads, with the way back; the API answers JSON', async () => {
    const missing = await c.get('/app/no-such-page');
    expect(missing.status).toBe(404);
    expect(missing.html).toContain('<h1>Page not found</h1>');
    expect(missing.html).toContain('href="/app"');
    const api = await fetch(`${svc.url}/v1/no-such-operation`);
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ error: 'not found' });
  });
});

describe('mentions page', () => {
  it('lists each source naming the brand with the sentence naming it, filters it, and refuses a bad filter with a page', async () => {
    const page = await c.get('/app/mentions');
    expect(page.status).toBe(200);
    expect(page.html).toContain('<h1>Mentions</h1>');
    expect(page.html).toContain('Its story');
    const stories = await c.get('/app/stories');
    expect(stories.html).toContain('href="/app/mentions"');
    const none = await c.get('/app/mentions?brand=acme.example&type=review');
    expect(none.html).toContain('No mentions found yet.');
    const bad = await c.get('/app/mentions?brand=acme.example&language=english');
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('language');
  });

  it('streams what is found after the page was shown, in place, and goes on from the last event on reconnecting', async () => {
    const page = await c.get('/app/mentions?brand=acme.example');
    const address = /data-stream="([^"]+)"/.exec(page.html)![1]!.replace(/&amp;/g, '&');
    expect(address).toMatch(/^\/app\/mentions\/stream\?brand=acme.example&since=/);
    /** Opens the stream and reads it until an event comes; answers the event's lines. */
    const next = async (headers: Record<string, string> = {}) => {
      const ctrl = new AbortController();
      const res = await fetch(svc.url + address, {
        headers: { cookie: c.cookieHeader(), ...headers },
        signal: ctrl.signal,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      const reader = res.body!.getReader();
      let text = '';
      const found = async () => {
        while (!/\nevent: mentions\ndata: .*\n\n/.test(text)) {
          const { value, done } = await reader.read();
          if (done) throw new Error('the stream ended');
          text += new TextDecoder().decode(value);
        }
        ctrl.abort();
        return {
          id: /\nid: (\S+)\n/.exec(text)![1]!,
          data: JSON.parse(/\ndata: (.*)\n/.exec(text)![1]!) as { count: number; html: string },
        };
      };
      return { found, close: () => ctrl.abort() };
    };
    const brand = await requireBrandByHost(svc.app, 'acme.example');
    const first = await next();
    await importStory(svc.app, { brand, article: article('Acme', 77), actor: 'operator' });
    const event = await first.found();
    expect(event.data.count).toBe(1);
    expect(event.data.html).toContain('https://news.example.org/acme/77');
    expect(event.data.html).toContain('<time');
    // Reconnected, the browser says the last event it had: only what came after it comes.
    const again = await next({ 'last-event-id': event.id });
    await importStory(svc.app, { brand, article: article('Acme', 78), actor: 'operator' });
    const later = await again.found();
    expect(later.data.count).toBe(1);
    expect(later.data.html).toContain('https://news.example.org/acme/78');
    expect(later.data.html).not.toContain('https://news.example.org/acme/77');
    // A brand the team does not read is no stream, as it is no page.
    const foreign = await fetch(`${svc.url}/app/mentions/stream?brand=nobody.example`, {
      headers: { cookie: c.cookieHeader() },
    });
    expect(foreign.status).toBe(404);
    // Signed out, no stream either.
    expect((await fetch(`${svc.url}${address}`, { redirect: 'manual' })).status).toBe(303);
    // And a stream open when its person signs out ends at its next ask.
    const other = new PortalClient(svc.url);
    await other.signIn('admin@acme.example', 'correct horse battery');
    // (Resumed from a moment after all found so far: nothing is new for it.)
    const open = await fetch(svc.url + address, {
      headers: { cookie: other.cookieHeader(), 'last-event-id': '2100-01-01T00:00:00.000Z' },
    });
    expect(open.status).toBe(200);
    await other.get('/app/mentions');
    expect((await other.post('/signout', {})).status).toBe(303);
    const rest = await open.text();
    expect(rest).toContain('retry: 5000');
    expect(rest).not.toContain('event: mentions');
  });
});
