import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { createKey } from '../../src/domain/api-key-admin.js';
import { subscribe } from '../../src/domain/billing-admin.js';
import { addBrand, requireBrandByHost } from '../../src/domain/brands.js';
import { importStory } from '../../src/domain/import-story.js';
import { startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';
import { article } from '../support/world.js';

/**
 * For each page of the portal, what a member, an admin and an outsider (a user of another
 * account) see and may do. The portal runs the same operations as the API, so this table
 * is the API's policy seen through the pages.
 */
let svc: TestService;
let event: string;
const PASSWORD = 'correct horse battery';
const as: Record<'member' | 'admin' | 'outsider', PortalClient> = {} as never;

beforeAll(async () => {
  svc = await startService({}, { runJobs: false });
  const acme = await createAccount(svc.app, 'Acme', 'partner');
  const other = await createAccount(svc.app, 'Globex', 'partner');
  await addUser(svc.app, {
    accountId: acme,
    email: 'member@acme.example',
    password: PASSWORD,
    role: 'member',
  });
  await addUser(svc.app, {
    accountId: acme,
    email: 'admin@acme.example',
    password: PASSWORD,
    role: 'admin',
  });
  await addUser(svc.app, {
    accountId: other,
    email: 'owner@globex.example',
    password: PASSWORD,
    role: 'owner',
  });
  await addBrand(svc.app, { accountId: acme, host: 'acme.example', name: 'Acme', verified: true });
  // The brand whose settings (feeds, aliases, recognition) the action rows change.
  await addBrand(svc.app, {
    accountId: acme,
    host: 'settings.example',
    name: 'Settings',
    verified: true,
  });
  const brand = await requireBrandByHost(svc.app, 'acme.example');
  event = (await importStory(svc.app, { brand, article: article('Acme', 1), actor: 'operator' }))
    .event_uri;
  for (const [who, email] of [
    ['member', 'member@acme.example'],
    ['admin', 'admin@acme.example'],
    ['outsider', 'owner@globex.example'],
  ] as const) {
    as[who] = new PortalClient(svc.url);
    expect((await as[who].signIn(email, PASSWORD)).status).toBe(303);
  }
  // Context needs the full advisory: unlocked with the included unit.
  await as.admin.get('/app');
  expect((await as.admin.post(`${storyPath()}/unlock`)).status).toBe(303);
  // Rows that change a story's state get stories of their own (ownStory), unlocked by
  // metering on a subscription, through the API.
  await subscribe(svc.app, acme, 'test');
  acmeKey = (
    await createKey(svc.app, { accountId: acme, role: 'owner', scope: null, actor: 'test' })
  ).key;
});

let acmeKey: string;
let stories = 1;
/** A story of its own, unlocked, with a ready proposal when asked: a row's own state. */
async function ownStory(opts: { proposal?: boolean } = {}): Promise<string> {
  const brand = await requireBrandByHost(svc.app, 'acme.example');
  const { event_uri } = await importStory(svc.app, {
    brand,
    article: article('Acme', ++stories),
    actor: 'operator',
  });
  const post = (path: string, body: object) =>
    svc.request('POST', path, {
      key: acmeKey,
      body: { brand: 'acme.example', event_uri, ...body },
    });
  expect((await post('/v1/advisory', {})).body.ok).toBe(true);
  if (opts.proposal) {
    expect((await post('/v1/story/context', { context: 'New facts.' })).status).toBe(202);
    await svc.app.jobs.drain();
  }
  return `/app/stories/acme.example/${event_uri}`;
}

it('an unlocked story says why it has its severity, citing the source the signal fired in', async () => {
  const page = (await as.admin.get(storyPath())).html;
  expect(page).toContain('<summary>Why high?</summary>');
  expect(page).toMatch(
    /<li>product-safety: “recall” in “Acme announced a product recall after injuries\.” <span class="cite"><a href="#source-s1" aria-describedby="cite-\d+">\[s1\]<\/a><span class="tip" role="tooltip" id="cite-\d+">Acme story number \d+ · Example News<\/span><\/span><\/li>/,
  );
});
afterAll(async () => {
  await svc.close();
});

const storyPath = () => `/app/stories/acme.example/${event}`;

describe('what each person sees', () => {
  const pages: [
    string,
    () => string,
    Record<string, { status: number; has?: string[]; hasNot?: string[] }>,
  ][] = [
    [
      'stories',
      () => '/app',
      {
        // The top bar leaves out what a member cannot work in.
        member: {
          status: 200,
          has: ['Acme story number 1', 'href="/app/team"'],
          hasNot: ['href="/app/keys"', 'href="/app/webhooks"', 'href="/app/billing"'],
        },
        admin: {
          status: 200,
          has: [
            'Acme story number 1',
            'href="/app/keys"',
            'href="/app/webhooks"',
            'href="/app/billing"',
          ],
        },
        outsider: { status: 200, hasNot: ['Acme story number 1'] },
      },
    ],
    [
      'story',
      storyPath,
      {
        member: {
          status: 200,
          has: ['Response plan', 'Add context', 'unlocked the advisory'],
          // Only a phase's assignee marks it done, and no phase is assigned yet.
          hasNot: ['Mark done'],
        },
        admin: { status: 200, has: ['Response plan'] },
        // A foreign story is as unknown as a made-up one.
        outsider: { status: 404, hasNot: ['Acme story number 1'] },
      },
    ],
    [
      'brands',
      () => '/app/brands',
      {
        member: {
          status: 200,
          has: ['acme.example'],
          hasNot: ['Add a brand', 'Add feed', 'Save aliases', 'Save recognition'],
        },
        admin: {
          status: 200,
          has: ['Add a brand', 'Add feed', 'Save aliases', 'Save recognition'],
        },
        outsider: { status: 200, hasNot: ['acme.example'] },
      },
    ],
    [
      'team',
      () => '/app/team',
      {
        member: {
          status: 200,
          has: ['member@acme.example', 'admin@acme.example'],
          hasNot: ['Invite a teammate'],
        },
        admin: { status: 200, has: ['Invite a teammate', 'seats'] },
        outsider: { status: 200, hasNot: ['member@acme.example'] },
      },
    ],
    [
      'API keys',
      () => '/app/keys',
      {
        member: {
          status: 200,
          has: ['Only owners and admins manage API keys'],
          hasNot: ['Create the key'],
        },
        admin: { status: 200, has: ['Create the key'] },
        outsider: { status: 200, has: ['Create the key'], hasNot: ['acme.example'] },
      },
    ],
    [
      'activity',
      () => '/app/activity',
      {
        member: { status: 200, has: ['found the story', 'unlocked the advisory', 'acme.example'] },
        admin: { status: 200, has: ['found the story'] },
        outsider: { status: 200, hasNot: ['acme.example', 'found the story'] },
      },
    ],
    [
      'webhooks',
      () => '/app/webhooks',
      {
        member: {
          status: 200,
          has: ['Only owners and admins manage webhooks'],
          hasNot: ['Add endpoint'],
        },
        admin: { status: 200, has: ['Add endpoint', 'story.updated'] },
        outsider: { status: 200, has: ['No endpoints yet'] },
      },
    ],
    [
      'billing',
      () => '/app/billing',
      {
        member: {
          status: 200,
          has: ['Only owners and admins see billing'],
          hasNot: ['Included left'],
        },
        admin: { status: 200, has: ['This month, per brand', 'acme.example', 'included unit'] },
        outsider: { status: 200, hasNot: ['acme.example'] },
      },
    ],
    [
      'partners',
      () => '/app/partners',
      {
        member: {
          status: 200,
          has: ['Partners and clients'],
          hasNot: ['Invite a client', 'Brand kit'],
        },
        // Inviting clients is the agency plan's; this account is on the partner plan, which
        // keeps a brand kit all the same.
        admin: {
          status: 200,
          has: ['Your client brands', 'Brand kit'],
          hasNot: ['Invite a client'],
        },
        outsider: { status: 200, has: ['No partner acts on your brands'] },
      },
    ],
  ];

  for (const [name, path, rows] of pages) {
    for (const [who, want] of Object.entries(rows)) {
      it(`${name}: ${who}`, async () => {
        const r = await as[who as keyof typeof as].get(path());
        expect(r.status).toBe(want.status);
        for (const text of want.has ?? []) expect(r.html).toContain(text);
        for (const text of want.hasNot ?? []) expect(r.html).not.toContain(text);
      });
    }
  }
});

describe('what each person may do', () => {
  const actions: [
    string,
    (who: string) => [string, Record<string, string>] | Promise<[string, Record<string, string>]>,
    Record<string, number>,
  ][] = [
    [
      'add a brand',
      (who) => ['/app/brands', { host: `${who}.example`, name: 'New' }],
      { member: 403, outsider: 303, admin: 303 },
    ],
    [
      'add a feed to settings.example',
      () => [
        '/app/brands/sources',
        { brand: 'settings.example', url: 'https://news.example.org/feed.xml' },
      ],
      { member: 403, outsider: 404, admin: 303 },
    ],
    [
      'set the aliases of settings.example',
      () => ['/app/brands/aliases', { brand: 'settings.example', aliases: 'Acme Corp' }],
      { member: 403, outsider: 404, admin: 303 },
    ],
    [
      'set how settings.example is recognised',
      () => [
        '/app/brands/match',
        { brand: 'settings.example', strict: 'on', require: 'Road Runner', exclude: '' },
      ],
      { member: 403, outsider: 404, admin: 303 },
    ],
    [
      'set a recognition mode that does not exist',
      () => [
        '/app/brands/match',
        { brand: 'settings.example', strict: 'sometimes', require: '', exclude: '' },
      ],
      { admin: 400 },
    ],
    [
      'invite a teammate',
      () => ['/app/team/invite', { email: 'new@acme.example' }],
      { member: 403, admin: 303 },
    ],
    [
      'create an API key',
      () => ['/app/keys', { name: 'k', role: 'member', scope: 'full' }],
      { member: 403, admin: 200 },
    ],
    [
      'create an owner key as an admin',
      () => ['/app/keys', { name: 'k', role: 'owner', scope: 'full' }],
      { admin: 403 },
    ],
    [
      'add context to the story',
      async () => [`${await ownStory()}/context`, { context: 'The supplier fixed it.' }],
      { outsider: 404, member: 303 },
    ],
    [
      // Owners only among people (spec 3.2), whatever the proposal's state.
      'apply the proposal',
      () => [`${storyPath()}/apply`, {}],
      { outsider: 404, member: 403, admin: 403 },
    ],
    [
      'dismiss the proposal',
      async () => [`${await ownStory({ proposal: true })}/dismiss`, {}],
      { outsider: 404, member: 403, admin: 303 },
    ],
    [
      'revoke a partner that does not act on the brand',
      () => [
        '/app/partners/revoke',
        { brand: 'acme.example', partner: 'acc_unknown', confirmed: 'yes' },
      ],
      { member: 403, admin: 404 },
    ],
    [
      'set the brand kit',
      () => [
        '/app/partners/brand-kit',
        { display_name: 'Acme Partners', logo_url: '', accent_color: '#123456' },
      ],
      { member: 403, admin: 303 },
    ],
    [
      'add a webhook endpoint on a private address',
      () => ['/app/webhooks', { url: 'https://127.0.0.1/hook', events: 'story.created' }],
      { member: 403, admin: 400 },
    ],
    [
      'retry a delivery of another account',
      () => ['/app/webhooks/retry', { id: 'dlv_unknown' }],
      { member: 403, admin: 404 },
    ],
    [
      'publish a Brand Note',
      () => [`${storyPath()}/note`, { text: 'Our statement.' }],
      { outsider: 404, member: 303 },
    ],
  ];

  for (const [name, request, rows] of actions) {
    for (const [who, status] of Object.entries(rows)) {
      it(`${name}: ${who} → ${status}`, async () => {
        const c = as[who as keyof typeof as];
        const [path, fields] = await request(who);
        await c.get('/app');
        const r = await c.post(path, fields);
        expect(r.status).toBe(status);
      });
    }
  }

  it('marks a phase done only as its assignee (complete_phase for people)', async () => {
    await as.admin.get('/app');
    const assign = await as.admin.post(`${storyPath()}/assign-phase`, {
      phase: '2',
      assignee: 'member@acme.example',
    });
    expect(assign.status).toBe(303);
    const byAdmin = await as.admin.post(`${storyPath()}/phase-done`, { phase: '2' });
    expect(byAdmin.status).toBe(409);
    expect(byAdmin.html).toContain('Only the assignee of this phase may mark it done');
    expect((await as.admin.get(storyPath())).html).not.toContain('Mark done');
    const page = (await as.member.get(storyPath())).html;
    expect(page.match(/Mark done/g)).toHaveLength(1);
    expect((await as.member.post(`${storyPath()}/phase-done`, { phase: '2' })).status).toBe(303);
  });
});
