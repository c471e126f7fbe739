import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { addBrand, requireBrandByHost } from '../../src/domain/brands.js';
import { importStory } from '../../src/domain/import-story.js';
import { attemptProblem } from '../../src/web/portal/webhook-pages.js';
import { startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';
import { startReceiver } from '../support/receiver.js';
import { article } from '../support/world.js';

/** Pausing, resuming and deleting webhook endpoints from the portal. */
let svc: TestService;
let hooks: Awaited<ReturnType<typeof startReceiver>>;
let c: PortalClient;
let page: string;

beforeAll(async () => {
  hooks = await startReceiver();
  svc = await startService({ FETCH_ALLOW_HOSTS: `127.0.0.1:${hooks.port}` }, { runJobs: false });
  const acme = await createAccount(svc.app, 'Acme', 'partner');
  await addUser(svc.app, {
    accountId: acme,
    email: 'admin@acme.example',
    password: 'correct horse battery',
    role: 'admin',
  });
  await addBrand(svc.app, { accountId: acme, host: 'acme.example', name: 'Acme', verified: true });
  const brand = await requireBrandByHost(svc.app, 'acme.example');
  const { event_uri } = await importStory(svc.app, {
    brand,
    article: article('Acme', 1),
    actor: 'operator',
  });
  page = `/app/stories/acme.example/${encodeURIComponent(event_uri)}`;
  c = new PortalClient(svc.url);
  await c.signIn('admin@acme.example', 'correct horse battery');
});
afterAll(async () => {
  await hooks.close();
  await svc.close();
});

/** An event for the endpoint: the Brand Note published, or deleted. */
async function event() {
  await c.get(page);
  const noted = (await c.get(page)).html.includes('<blockquote>');
  if (noted) await c.post(`${page}/delete-note`, { confirmed: 'yes' });
  else await c.post(`${page}/note`, { text: 'Our statement.' });
  await svc.app.jobs.drain();
}

describe('webhook endpoints', () => {
  it('pause sends nothing, not even later; resume sends again; delete is asked, then takes the log too', async () => {
    await c.get('/app/webhooks');
    await c.post('/app/webhooks', {
      url: hooks.url('/hook'),
      events: '*',
    });
    const [endpoint] = await svc.app.db.selectFrom('webhook_endpoints').select('id').execute();
    const id = endpoint!.id;
    await event();
    expect(hooks.hits).toHaveLength(1);

    expect((await c.post('/app/webhooks/pause', { id })).location).toBe(
      '/app/webhooks?done=webhook-paused',
    );
    const paused = (await c.get('/app/webhooks')).html;
    expect(paused).toContain('>paused</span>');
    expect(paused).toContain('>Resume<');
    await event();
    expect(hooks.hits).toHaveLength(1);

    expect((await c.post('/app/webhooks/resume', { id })).location).toBe(
      '/app/webhooks?done=webhook-resumed',
    );
    await event();
    expect(hooks.hits).toHaveLength(2);
    // The activity names the endpoint's host only: members read it, and a URL's path or
    // query may carry the receiver's token.
    const activity = (await c.get('/app/activity')).html;
    expect(activity).toContain(
      `admin@acme.example paused a webhook endpoint on 127.0.0.1:${hooks.port}.`,
    );
    expect(activity).not.toContain(hooks.url('/hook'));

    const asked = await c.post('/app/webhooks/delete', { id });
    expect(asked.html).toContain('Delete this webhook endpoint?');
    expect(await svc.app.db.selectFrom('webhook_endpoints').select('id').execute()).toHaveLength(1);
    expect((await c.post('/app/webhooks/delete', { id, confirmed: 'yes' })).location).toBe(
      '/app/webhooks?done=webhook-deleted',
    );
    expect(await svc.app.db.selectFrom('webhook_endpoints').select('id').execute()).toEqual([]);
    expect(await svc.app.db.selectFrom('webhook_deliveries').select('id').execute()).toEqual([]);
    expect(await svc.app.db.selectFrom('webhook_attempts').select('id').execute()).toEqual([]);
    await event();
    expect(hooks.hits).toHaveLength(2);
    // Another account's endpoint, or one gone, is not found.
    expect((await c.post('/app/webhooks/pause', { id })).status).toBe(404);
    expect((await c.post('/app/webhooks/delete', { id, confirmed: 'yes' })).status).toBe(404);
  });

  it('says why an attempt failed in words, with the library’s own behind “details”', async () => {
    expect(attemptProblem('connect ECONNREFUSED 203.0.113.9:443')).toBe(
      'the receiver refused the connection',
    );
    expect(attemptProblem('no answer within 10000 ms')).toBe('no answer in time');
    expect(
      attemptProblem(
        'C0A1C1F8D37F0000:error:0A000086:SSL routines:tls_post_process_server_certificate:certificate verify failed',
      ),
    ).toBe('its TLS certificate could not be verified');
    expect(attemptProblem('getaddrinfo ENOTFOUND hooks.invalid')).toBe(
      'its host name does not resolve',
    );
    expect(attemptProblem('bad port')).toBe(
      'its port is one of those fetch refuses (a well-known service port)',
    );
    expect(attemptProblem('something new')).toBe('the request failed');
  });
});
