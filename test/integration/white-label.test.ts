import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { readBrandKit, setBrandKit } from '../../src/domain/brand-kit.js';
import { listOutbox } from '../../src/email/outbox.js';
import { brs, brsServe } from '../support/cli.js';
import { migratedDatabase } from '../support/databases.js';
import { startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';

/**
 * The white-label onboarding of delegation invites: a partner's brand kit, set in the
 * portal or with `brs account brand-kit`, worn by every page its clients see.
 */
let svc: TestService;
let agency: string;
let owner: PortalClient;
const PASSWORD = 'correct horse battery';
const RETURN = 'https://app.northwind.example/clients';

beforeAll(async () => {
  svc = await startService({}, { runJobs: false });
  agency = await createAccount(svc.app, 'Northwind Agency', 'agency');
  await addUser(svc.app, {
    accountId: agency,
    email: 'owner@northwind.example',
    password: PASSWORD,
    role: 'owner',
  });
  await addUser(svc.app, {
    accountId: agency,
    email: 'member@northwind.example',
    password: PASSWORD,
    role: 'member',
  });
  owner = new PortalClient(svc.url);
  await owner.signIn('owner@northwind.example', PASSWORD);
});
afterAll(() => svc.close());

/** An invitation made on the partners page, as the agency's staff make them. */
async function inviteFromPortal(c: PortalClient, brand: string): Promise<string> {
  await c.get('/app/partners');
  const made = await c.post('/app/partners/invite', { brand, return_url: RETURN });
  expect(made.status).toBe(200);
  return /\/onboard\/(inv_[A-Za-z0-9_-]+)<\/code>/.exec(made.html)![1]!;
}

async function form(base: string, path: string, fields: Record<string, string>) {
  return fetch(new URL(path, base), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

interface Look {
  name: string;
  logo: string | null;
  accent: string | null;
}

/**
 * The page is the partner's: its name (escaped) in the title and the top bar, its logo
 * with alt text and no referrer, its colour; "Stories" only in the small print, once.
 */
async function expectWhiteLabel(res: Response, look: Look): Promise<string> {
  const text = await res.text();
  expect(res.headers.get('content-security-policy')).toBe(
    "default-src 'none'; style-src 'unsafe-inline'; img-src https:; frame-ancestors 'none'",
  );
  expect(text).toMatch(new RegExp(`<title>[^<]* · ${escapeRe(look.name)}</title>`));
  expect(text.match(/Stories/g)).toEqual(['Stories']);
  expect(text).toContain('<footer class="powered">powered by Stories</footer>');
  if (look.logo) {
    expect(text).toContain(
      `<span class="logo"><img src="${look.logo}" alt="${look.name}" referrerpolicy="no-referrer"></span>`,
    );
  } else {
    expect(text).not.toContain('<img');
    expect(text).toContain(`<span class="logo">${look.name}</span>`);
  }
  if (look.accent) expect(text).toContain(`header.top{background:${look.accent};`);
  else expect(text).toContain('header.top{background:#ffffff;');
  return text;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('brand kit in the portal', () => {
  const KIT = {
    display_name: 'Northwind <Digital> & "Co"',
    logo_url: 'https://cdn.northwind.example/logo.svg?v=1&size=2',
    accent_color: '#0A7F5A',
  };
  const LOOK: Look = {
    name: 'Northwind &lt;Digital&gt; &amp; &quot;Co&quot;',
    logo: 'https://cdn.northwind.example/logo.svg?v=1&amp;size=2',
    accent: '#0a7f5a',
  };
  // Each test starts from the kit saved (one of them clears it).
  beforeEach(async () => {
    // As the portal's form stores it (the colour lower-cased).
    await setBrandKit(svc.app, agency, { ...KIT, accent_color: '#0a7f5a' }, 'test');
  });

  it('an owner saves it on the partners page, and every onboarding page of an invitation wears it', async () => {
    const page = await owner.get('/app/partners');
    expect(page.html).toContain('<h2 id="brand-kit">Brand kit</h2>');
    expect(page.html).toContain('placeholder="Northwind Agency"');
    const saved = await owner.post('/app/partners/brand-kit', KIT);
    expect(saved.status).toBe(303);
    expect(saved.location).toBe('/app/partners?done=brand-kit');
    const shown = await owner.get(saved.location!);
    expect(shown.html).toContain('Brand kit saved');
    expect(shown.html).toContain(`value="${LOOK.name}"`);
    expect(shown.html).toContain(`value="${LOOK.logo}"`);
    expect(shown.html).toContain('value="#0a7f5a"');
    expect(await readBrandKit(svc.app, agency)).toEqual({
      display_name: KIT.display_name,
      logo_url: 'https://cdn.northwind.example/logo.svg?v=1&size=2',
      accent_color: '#0a7f5a',
    });
    // The portal's own pages keep their CSP: no images there.
    expect(shown.headers.get('content-security-policy')).not.toContain('img-src');

    const token = await inviteFromPortal(owner, 'client.example');
    const landing = await expectWhiteLabel(await fetch(`${svc.url}/onboard/${token}`), LOOK);
    expect(landing).toContain(`<h1>${LOOK.name} invites you to connect client.example</h1>`);
    // The primary button in the partner's colour, with text that reads on it.
    expect(landing).toContain('button:not(.secondary){background:#0a7f5a;color:#ffffff}');

    const wrong = await form(svc.url, `/onboard/${token}/signup`, { email: 'me@other.example' });
    expect(wrong.status).toBe(400);
    expect(await expectWhiteLabel(wrong, LOOK)).toContain('must be an address at client.example');

    const sent = await form(svc.url, `/onboard/${token}/signup`, { email: 'ceo@client.example' });
    expect(sent.status).toBe(200);
    expect(await expectWhiteLabel(sent, LOOK)).toContain(`review ${LOOK.name}'s request`);
    const mail = (await listOutbox(svc.app, 50)).find((m) => m.to === 'ceo@client.example')!;
    expect(mail.subject).toBe(
      `Confirm your email to connect client.example with ${KIT.display_name}`,
    );
    // The email is white-label too: sent in the partner's name, its text naming the partner,
    // "Stories" only in the small print, once.
    expect(mail.from_name).toBe(KIT.display_name);
    expect(mail.text).toContain(
      `${KIT.display_name} invited you to connect client.example with them`,
    );
    expect(mail.text.match(/Stories/g)).toEqual(['Stories']);
    expect(mail.text).toMatch(/\n-- \npowered by Stories$/);
    const link = /\/onboard\/confirm\/(\S+)/.exec(mail.text)![1]!;

    const consent = await fetch(`${svc.url}/onboard/confirm/${link}`);
    expect(consent.status).toBe(200);
    const consentHtml = await expectWhiteLabel(consent, LOOK);
    expect(consentHtml).toContain(`<h1>Allow ${LOOK.name} to act on client.example?</h1>`);
    // A display name alone could pose as another company: the account behind it is named.
    expect(consentHtml).toContain('is the display name of the account Northwind Agency.');
    const short = await form(svc.url, `/onboard/confirm/${link}`, {
      decision: 'approve',
      password: 'short',
    });
    expect(short.status).toBe(400);
    expect(await expectWhiteLabel(short, LOOK)).toContain('password: must be 8 to 1024');

    const done = await form(svc.url, `/onboard/confirm/${link}`, {
      decision: 'approve',
      password: PASSWORD,
    });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${RETURN}?brand=client.example&outcome=approved`);

    // The used link and the used invitation still say whose they were.
    const usedLink = await fetch(`${svc.url}/onboard/confirm/${link}`);
    expect(usedLink.status).toBe(404);
    expect(await expectWhiteLabel(usedLink, LOOK)).toContain(`Ask ${LOOK.name} for a new one`);
    const used = await fetch(`${svc.url}/onboard/${token}`);
    expect(used.status).toBe(410);
    expect(await expectWhiteLabel(used, LOOK)).toContain('This invitation is used');
  });

  it('an expired invitation answers in the partner look too', async () => {
    const token = await inviteFromPortal(owner, 'late.example');
    await svc.app.db
      .updateTable('delegation_invites')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('brand_host', '=', 'late.example')
      .execute();
    const res = await fetch(`${svc.url}/onboard/${token}`);
    expect(res.status).toBe(410);
    expect(await expectWhiteLabel(res, LOOK)).toContain('This invitation is expired');
  });

  it('refuses a colour or logo that is not one, with a 400 that changes nothing', async () => {
    const before = await readBrandKit(svc.app, agency);
    const cases: [Partial<typeof KIT>, string][] = [
      [{ accent_color: 'red' }, 'Accent_color: must be a colour written #rrggbb'],
      [{ accent_color: '#0a7f5a;background:url(x)' }, 'Accent_color: must be a colour'],
      [{ accent_color: '#0a7f5' }, 'Accent_color: must be a colour'],
      [{ logo_url: 'http://cdn.northwind.example/logo.png' }, 'Logo_url: must be an https URL'],
      [{ logo_url: 'javascript:alert(1)' }, 'Logo_url: must be an https URL'],
      [{ logo_url: 'https://me:secret@cdn.example/logo.png' }, 'Logo_url: must not contain'],
      [{ logo_url: `https://cdn.example/${'a'.repeat(2040)}` }, 'Logo_url: must be at most 2048'],
      [{ display_name: 'N'.repeat(81) }, 'Display_name: must be 1 to 80 characters'],
      [
        { display_name: 'Line\nbreak' },
        'Display_name: must not contain control or format characters',
      ],
      [
        { display_name: 'Acme\u202eevil' },
        'Display_name: must not contain control or format characters',
      ],
    ];
    for (const [bad, error] of cases) {
      await owner.get('/app/partners');
      const r = await owner.post('/app/partners/brand-kit', { ...KIT, ...bad });
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.html).toContain(error);
      expect(await readBrandKit(svc.app, agency)).toEqual(before);
    }
    // What was typed comes back escaped, to correct.
    await owner.get('/app/partners');
    const r = await owner.post('/app/partners/brand-kit', {
      ...KIT,
      accent_color: '"><b>x</b>',
    });
    expect(r.html).toContain('value="&quot;&gt;&lt;b&gt;x&lt;/b&gt;"');
    expect(r.html).not.toContain('<b>x</b>');
  });

  it('only owners and admins of a partner or agency account keep one', async () => {
    const member = new PortalClient(svc.url);
    await member.signIn('member@northwind.example', PASSWORD);
    expect((await member.get('/app/partners')).html).not.toContain('Brand kit');
    const refused = await member.post('/app/partners/brand-kit', {
      display_name: 'Hijack',
      logo_url: '',
      accent_color: '',
    });
    expect(refused.status).toBe(403);
    expect((await readBrandKit(svc.app, agency)).display_name).toBe('Northwind <Digital> & "Co"');

    const pro = await createAccount(svc.app, 'Pro Shop', 'pro');
    await addUser(svc.app, {
      accountId: pro,
      email: 'owner@proshop.example',
      password: PASSWORD,
      role: 'owner',
    });
    const proOwner = new PortalClient(svc.url);
    await proOwner.signIn('owner@proshop.example', PASSWORD);
    expect((await proOwner.get('/app/partners')).html).not.toContain('Brand kit');
    const r = await proOwner.post('/app/partners/brand-kit', {
      display_name: 'Pro',
      logo_url: '',
      accent_color: '',
    });
    expect(r.status).toBe(403);
    expect(await readBrandKit(svc.app, pro)).toEqual({
      display_name: null,
      logo_url: null,
      accent_color: null,
    });
  });

  it('a partner without a kit, or with it cleared, shows its account name in the plain look', async () => {
    const other = await createAccount(svc.app, 'Globex Partners', 'agency');
    await addUser(svc.app, {
      accountId: other,
      email: 'owner@globex.example',
      password: PASSWORD,
      role: 'owner',
    });
    const globex = new PortalClient(svc.url);
    await globex.signIn('owner@globex.example', PASSWORD);
    const token = await inviteFromPortal(globex, 'plain.example');
    const page = await expectWhiteLabel(await fetch(`${svc.url}/onboard/${token}`), {
      name: 'Globex Partners',
      logo: null,
      accent: null,
    });
    expect(page).toContain('<h1>Globex Partners invites you to connect plain.example</h1>');

    // Empty fields clear the kit: the account's name stands in again.
    await owner.get('/app/partners');
    const cleared = await owner.post('/app/partners/brand-kit', {
      display_name: '',
      logo_url: '',
      accent_color: '',
    });
    expect(cleared.status).toBe(303);
    const mine = await inviteFromPortal(owner, 'again.example');
    expect(
      await expectWhiteLabel(await fetch(`${svc.url}/onboard/${mine}`), {
        name: 'Northwind Agency',
        logo: null,
        accent: null,
      }),
    ).toContain('<h1>Northwind Agency invites you');
  });
});

describe('brs account brand-kit', () => {
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  let server: Awaited<ReturnType<typeof brsServe>> | undefined;
  // The account whose kit the tests read: set by the command itself.
  beforeAll(async () => {
    const db = await migratedDatabase();
    env = { DATABASE_URL: db.url };
    drop = db.drop;
    account = (await brs(env, 'account', 'create', '--name', 'Fabrikam', '--plan', 'agency')).out
      .account;
    expect((await kit(...FABRIKAM)).code).toBe(0);
  });
  afterAll(async () => {
    await server?.stop();
    await drop();
  });

  let account: string;
  /** `brs account brand-kit` for an account: this suite's, unless a test has its own. */
  const kitOf =
    (of: () => string) =>
    (...args: string[]) =>
      brs(env, 'account', 'brand-kit', '--account', of(), ...args);
  const kit = kitOf(() => account);
  const FABRIKAM = [
    '--name',
    'Fabrikam Studio',
    '--logo-url',
    'https://fabrikam.example/logo.png',
    '--accent',
    '#0a7',
  ];

  it('sets, shows and clears the kit', { timeout: 90_000 }, async () => {
    // An account of its own, from no kit at all.
    const account = (await brs(env, 'account', 'create', '--name', 'Contoso', '--plan', 'agency'))
      .out.account;
    const kit = kitOf(() => account);
    expect((await kit()).out).toEqual({
      account,
      display_name: null,
      logo_url: null,
      accent_color: null,
    });
    const set = await kit(...FABRIKAM);
    expect(set).toMatchObject({
      code: 0,
      out: {
        account,
        display_name: 'Fabrikam Studio',
        logo_url: 'https://fabrikam.example/logo.png',
        accent_color: '#00aa77',
      },
    });
    // An empty value clears that field only.
    expect((await kit('--logo-url', '')).out).toEqual({
      account,
      display_name: 'Fabrikam Studio',
      logo_url: null,
      accent_color: '#00aa77',
    });
    expect((await kit('--logo-url', 'https://fabrikam.example/logo.png')).code).toBe(0);
  });

  it('refuses bad values and writes nothing', { timeout: 90_000 }, async () => {
    for (const [args, error] of [
      [['--accent', 'red'], 'accent: must be a colour written #rrggbb'],
      [['--accent', 'rgb(0,0,0)'], 'accent: must be a colour written #rrggbb'],
      [['--logo-url', 'http://fabrikam.example/x.png'], 'logo-url: must be an https URL'],
      [
        ['--logo-url', 'https://u:p@fabrikam.example/x.png'],
        'logo-url: must not contain credentials',
      ],
      [['--name', 'x'.repeat(81)], 'name: must be 1 to 80 characters (empty clears it)'],
    ] as const) {
      // A bad value among good ones: nothing is written.
      const r = await kit('--name', 'Changed', ...args);
      expect(r, args.join(' ')).toMatchObject({ code: 1, out: { error } });
    }
    const unknown = await brs(env, 'account', 'brand-kit', '--account', 'acc_nope', '--name', 'X');
    expect(unknown).toMatchObject({ code: 1, out: { error: 'account acc_nope: not found' } });
    expect((await kit()).out.display_name).toBe('Fabrikam Studio');
  });

  it("the onboarding of the account's invitations wears it", { timeout: 90_000 }, async () => {
    const key = (
      await brs(env, 'key', 'create', '--account', account, '--role', 'owner', '--scope', 'full')
    ).out.key as string;
    server = await brsServe(env);
    const invite = await fetch(`${server.url}/v1/delegation-invites`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ brand: 'cli-client.example', return_url: RETURN }),
    }).then((r) => r.json() as Promise<{ onboarding_url: string }>);
    // The server listens on a port of its own choosing: the invite's path, on it.
    const onboarding = new URL(new URL(invite.onboarding_url).pathname, server.url);
    const page = await expectWhiteLabel(await fetch(onboarding), {
      name: 'Fabrikam Studio',
      logo: 'https://fabrikam.example/logo.png',
      accent: '#00aa77',
    });
    expect(page).toContain('<h1>Fabrikam Studio invites you to connect cli-client.example</h1>');
    // A light accent gets dark text.
    expect(page).toContain('button:not(.secondary){background:#00aa77;color:#1d2433}');
  });
});
