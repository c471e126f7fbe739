import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { addBrand, requireBrandByHost } from '../../src/domain/brands.js';
import { grantDelegation } from '../../src/domain/delegations.js';
import { addShareGuest } from '../../src/domain/shares.js';
import { listOutbox } from '../../src/email/outbox.js';
import { startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';
import { seedWorld, type World } from '../support/world.js';

/**
 * A partner's shares end with its delegation: their pages and guest links answer the
 * 404 of an unknown share, and the client re-enables them from the story page.
 */
let svc: TestService;
let w: World;
const PASSWORD = 'correct horse battery';
let clients = 0;

beforeAll(async () => {
  svc = await startService({}, { runJobs: false });
  w = await seedWorld(svc.app);
});
afterAll(() => svc.close());

const page = async (url: string, cookie?: string) => {
  const r = await fetch(url, { headers: cookie ? { cookie } : {}, redirect: 'manual' });
  return { status: r.status, text: await r.text(), headers: r.headers };
};

/** A pro client with an owner signed in to the portal, its brand delegated to the agency. */
async function client() {
  const host = `shared-${++clients}.example`;
  const id = await createAccount(svc.app, host, 'pro');
  await addUser(svc.app, {
    accountId: id,
    email: `owner@${host}`,
    password: PASSWORD,
    role: 'owner',
  });
  // Not an everyday word: fixture articles opening with it name it (docs/pipeline.md).
  await addBrand(svc.app, { accountId: id, host, name: 'Sharewell', verified: true });
  await grantDelegation(svc.app, {
    partnerId: w.accounts.agency,
    clientId: id,
    host,
    actor: 'test',
  });
  const portal = new PortalClient(svc.url);
  expect((await portal.signIn(`owner@${host}`, PASSWORD)).status).toBe(303);
  const stories = [await w.story(host, 1), await w.story(host, 2), await w.story(host, 3)];
  return { id, host, portal, stories };
}

const partnerShare = (brand: string, event_uri: string, settings: Record<string, unknown>) =>
  svc.request('POST', '/v1/shares', { key: w.keys.owner, body: { brand, event_uri, ...settings } });

/** Invites a guest to a guests share and signs them in: the cookie of their session. */
async function signedInGuest(host: string, event_uri: string, url: string, email: string) {
  const brand = await requireBrandByHost(svc.app, host);
  await addShareGuest(svc.app, {
    access: { brand, relation: 'delegated' },
    eventUri: event_uri,
    email,
    actor: 'test',
    byAccount: w.accounts.agency,
  });
  await fetch(`${url}/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email }).toString(),
  });
  const mail = (await listOutbox(svc.app, 50)).find((m) => m.to === email)!;
  const link = /(http\S+\/g\/\S+)/.exec(mail.text)![1]!;
  const opened = await page(link);
  expect(opened.status).toBe(303);
  return { link, cookie: opened.headers.get('set-cookie')!.split(';')[0]! };
}

const ENDINGS = {
  'the partner drops': async (c: Awaited<ReturnType<typeof client>>) => {
    const r = await svc.request('DELETE', '/v1/delegations', {
      key: w.keys.admin,
      query: { brand: c.host },
    });
    expect(r.status).toBe(200);
  },
  'the client revokes': async (c: Awaited<ReturnType<typeof client>>) => {
    await c.portal.get('/app/partners');
    const r = await c.portal.post('/app/partners/revoke', {
      brand: c.host,
      partner: w.accounts.agency,
      confirmed: 'yes',
    });
    expect(r.location).toBe('/app/partners?done=partner-revoked');
  },
};

describe("a partner's shares when its delegation ends", () => {
  it.each(Object.keys(ENDINGS))(
    '%s: its pages and guests get 404, the client’s own share serves, the client re-enables',
    async (ending) => {
      const c = await client();
      const [x, y, z] = c.stories as [string, string, string];
      const pub = await partnerShare(c.host, x, { access: 'public', listed: true });
      const guests = await partnerShare(c.host, y, { access: 'guests', mode: 'full' });
      expect([pub.status, guests.status]).toEqual([200, 200]);
      const guest = await signedInGuest(
        c.host,
        y,
        guests.body.url,
        `guest${clients}@press.example`,
      );
      expect((await page(guests.body.url, guest.cookie)).text).toContain(
        'Sharewell story number 2',
      );
      // The client's own share on the same brand.
      const zPath = `/app/stories/${c.host}/${z}`;
      await c.portal.get(zPath);
      await c.portal.post(`${zPath}/share`, { access: 'public', mode: 'briefing' });
      const own = /Shared at <a href="([^"]+)"/.exec((await c.portal.get(zPath)).html)![1]!;
      expect((await page(pub.body.url)).status).toBe(200);
      expect((await page(`${svc.url}/shares`)).text).toContain(pub.body.url.split('/s/')[1]);

      await ENDINGS[ending as keyof typeof ENDINGS](c);

      // The same 404 page as a share that never existed.
      const unknown = await page(`${svc.url}/s/${'A'.repeat(24)}`);
      expect(unknown.status).toBe(404);
      const gone = await page(pub.body.url);
      expect(gone).toMatchObject({ status: 404, text: unknown.text });
      expect((await page(`${svc.url}/shares`)).text).not.toContain(pub.body.url.split('/s/')[1]);
      expect(await page(guests.body.url, guest.cookie)).toMatchObject({
        status: 404,
        text: unknown.text,
      });
      expect((await page(guest.link)).status).toBe(404);
      const signin = await fetch(`${guests.body.url}/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: `guest${clients}@press.example` }).toString(),
      });
      expect(signin.status).toBe(404);
      expect((await page(own)).status).toBe(200);

      // The client sees it stopped on the story page, and re-enables it.
      const xPath = `/app/stories/${c.host}/${x}`;
      const story = await c.portal.get(xPath);
      expect(story.html).toContain('id="share-suspended"');
      expect(story.html).toContain('Re-enable the share');
      expect(story.html).not.toContain(`action="${xPath}/share"`);
      expect((await c.portal.post(`${xPath}/reenable-share`)).location).toBe(
        `${xPath}?done=share-reenabled`,
      );
      expect((await page(pub.body.url)).status).toBe(200);
      expect((await c.portal.get(xPath)).html).not.toContain('id="share-suspended"');
      // Re-enabled, the guests share serves its guests again.
      const yPath = `/app/stories/${c.host}/${y}`;
      await c.portal.get(yPath);
      await c.portal.post(`${yPath}/reenable-share`);
      expect((await page(guests.body.url, guest.cookie)).status).toBe(200);

      // Re-enabled, the share is the client's: the next partner's end leaves it serving.
      await grantDelegation(svc.app, {
        partnerId: w.accounts.agency,
        clientId: c.id,
        host: c.host,
        actor: 'test',
      });
      await ENDINGS['the partner drops'](c);
      expect((await page(pub.body.url)).status).toBe(200);
      const row = await svc.app.db
        .selectFrom('shares')
        .select(['set_by_account_id', 'suspended_at'])
        .where('token', '=', pub.body.url.split('/s/')[1])
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ set_by_account_id: c.id, suspended_at: null });
    },
  );

  it('a stopped share is not retuned back into view (409) and only the brand owner re-enables it', async () => {
    const c = await client();
    const [x] = c.stories as [string];
    const pub = await partnerShare(c.host, x, { access: 'public' });
    await ENDINGS['the partner drops'](c);
    // The partner comes back: the share it made before stays stopped until the client says.
    await grantDelegation(svc.app, {
      partnerId: w.accounts.agency,
      clientId: c.id,
      host: c.host,
      actor: 'test',
    });
    const retune = await partnerShare(c.host, x, { access: 'public', mode: 'compact' });
    expect(retune.status).toBe(409);
    expect(retune.body).toEqual({
      error: 'share: stopped when its partner left; the brand owner re-enables it',
    });
    expect((await page(pub.body.url)).status).toBe(404);
    // The partner's user cannot re-enable it from the portal.
    const partner = new PortalClient(svc.url);
    await partner.signIn('owner@northwind.example', PASSWORD);
    const xPath = `/app/stories/${c.host}/${x}`;
    const seen = await partner.get(xPath);
    expect(seen.html).toContain('id="share-suspended"');
    expect(seen.html).not.toContain('Re-enable the share');
    expect((await partner.post(`${xPath}/reenable-share`)).status).toBe(403);
    expect((await page(pub.body.url)).status).toBe(404);
    await c.portal.get(xPath);
    expect((await c.portal.post(`${xPath}/reenable-share`)).status).toBe(303);
    expect((await page(pub.body.url)).status).toBe(200);
    const retuned = await partnerShare(c.host, x, { access: 'public', mode: 'compact' });
    expect(retuned.body).toMatchObject({ url: pub.body.url, mode: 'compact' });
  });

  it.each(Object.keys(ENDINGS))(
    "%s: a client's share the partner retuned stops, and the guests the partner invited to the client's own share leave",
    async (ending) => {
      const c = await client();
      const [x, y] = c.stories as [string, string];
      // The client shares two stories; the partner retunes one and adds a guest to the other.
      const clientShare = async (event: string, fields: Record<string, string>) => {
        const path = `/app/stories/${c.host}/${event}`;
        await c.portal.get(path);
        await c.portal.post(`${path}/share`, fields);
        return /Shared at <a href="([^"]+)"/.exec((await c.portal.get(path)).html)![1]!;
      };
      const retunedUrl = await clientShare(x, { access: 'public', mode: 'compact' });
      const ownUrl = await clientShare(y, { access: 'guests', mode: 'full' });
      const retune = await partnerShare(c.host, x, { access: 'public', listed: true });
      expect(retune.body).toMatchObject({ url: retunedUrl, listed: true });
      const spy = await signedInGuest(c.host, y, ownUrl, `spy${clients}@press.example`);
      // A guest the client invited itself stays.
      const friend = `friend${clients}@press.example`;
      const brand = await requireBrandByHost(svc.app, c.host);
      await addShareGuest(svc.app, {
        access: { brand, relation: 'own' },
        eventUri: y,
        email: friend,
        actor: 'test',
        byAccount: c.id,
      });
      expect((await page(ownUrl, spy.cookie)).text).toContain('Sharewell story number 2');

      await ENDINGS[ending as keyof typeof ENDINGS](c);

      // The retuned share served the partner's settings: it stops like a share it made.
      expect((await page(retunedUrl)).status).toBe(404);
      expect((await page(`${svc.url}/shares`)).text).not.toContain(retunedUrl.split('/s/')[1]);
      // The client's own guests share goes on serving, to the client's guests only.
      const own = await page(ownUrl, spy.cookie);
      expect(own.status).toBe(200);
      expect(own.text).not.toContain('Sharewell story number 2');
      expect(own.text).toContain('shared with invited guests');
      expect((await page(spy.link)).status).not.toBe(303);
      const guests = await svc.app.db
        .selectFrom('share_guests')
        .innerJoin('shares', 'shares.id', 'share_guests.share_id')
        .select('share_guests.email')
        .where('shares.token', '=', ownUrl.split('/s/')[1]!)
        .execute();
      expect(guests.map((g) => g.email)).toEqual([friend]);
    },
  );

  it('a share or guest the partner writes as its delegation ends is refused, never left serving', async () => {
    const c = await client();
    const [x, y] = c.stories as [string, string];
    await partnerShare(c.host, y, { access: 'guests' });
    // The partner's request passed the brand check before the drop committed.
    const { brandFor } = await import('../../src/policy.js');
    const { upsertShare } = await import('../../src/domain/shares.js');
    const { dropDelegation } = await import('../../src/domain/delegations.js');
    const actor = {
      kind: 'key' as const,
      keyId: 'key_test',
      accountId: w.accounts.agency,
      plan: 'agency' as const,
      role: 'owner' as const,
      scope: null,
    };
    const access = await brandFor(svc.app, actor, c.host);
    expect(access.relation).toBe('delegated');
    await dropDelegation(svc.app, w.accounts.agency, c.host, 'test');
    await expect(
      upsertShare(svc.app, {
        access,
        eventUri: x,
        asked: { listed: true },
        actor: 'key:key_test',
        byAccount: w.accounts.agency,
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      addShareGuest(svc.app, {
        access,
        eventUri: y,
        email: 'late@press.example',
        actor: 'test',
        byAccount: w.accounts.agency,
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    const shares = await svc.app.db
      .selectFrom('shares')
      .innerJoin('stories', 'stories.id', 'shares.story_id')
      .select(['stories.event_uri', 'shares.suspended_at'])
      .where('stories.event_uri', 'in', [x, y])
      .execute();
    expect(shares).toEqual([{ event_uri: y, suspended_at: expect.any(String) }]);
  });
});
