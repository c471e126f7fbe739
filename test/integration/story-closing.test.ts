import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { addBrand, brandTermsOf, requireBrandByHost } from '../../src/domain/brands.js';
import { grantDelegation } from '../../src/domain/delegations.js';
import { importStory } from '../../src/domain/import-story.js';
import { namesBrand } from '../../src/pipeline/brand-matcher.js';
import { startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';

/** Closing a story by hand, with why; "not about us" teaching detection; reopening. */
let svc: TestService;
let admin: PortalClient;
let member: PortalClient;
let partner: PortalClient;
let n = 0;

const PASSWORD = 'correct horse battery';

/** A fresh story of Acme's: its page's path. */
async function story(
  title = 'Acme recalls kettles',
  text = 'Acme recalls its kettles after reports of burns, the company said today.',
) {
  const brand = await requireBrandByHost(svc.app, 'acme.example');
  const { event_uri } = await importStory(svc.app, {
    brand,
    article: {
      url: `https://news.example.org/local/${++n}`,
      title,
      publisher: 'Example News',
      published_at: '2026-11-20',
      text,
    },
    actor: 'operator',
  });
  return `/app/stories/acme.example/${encodeURIComponent(event_uri)}`;
}

const status = async (c: PortalClient, page: string) =>
  /<dt>Status<\/dt><dd><span class="status">([a-z ]+)<\/span>/
    .exec((await c.get(page)).html)?.[1]
    ?.trim();

async function acmeTerms() {
  const row = await svc.app.db
    .selectFrom('brands')
    .select(['host', 'name', 'aliases', 'match_policy'])
    .where('host', '=', 'acme.example')
    .executeTakeFirstOrThrow();
  return brandTermsOf(row);
}

beforeAll(async () => {
  svc = await startService({}, { runJobs: false });
  const acme = await createAccount(svc.app, 'Acme', 'pro');
  const agency = await createAccount(svc.app, 'Agency', 'agency');
  for (const [accountId, email, role] of [
    [acme, 'admin@acme.example', 'admin'],
    [acme, 'member@acme.example', 'member'],
    [agency, 'owner@agency.example', 'owner'],
  ] as const) {
    await addUser(svc.app, { accountId, email, password: PASSWORD, role });
  }
  await addBrand(svc.app, { accountId: acme, host: 'acme.example', name: 'Acme', verified: true });
  await grantDelegation(svc.app, {
    partnerId: agency,
    clientId: acme,
    host: 'acme.example',
    actor: 'test',
  });
  admin = new PortalClient(svc.url);
  member = new PortalClient(svc.url);
  partner = new PortalClient(svc.url);
  await admin.signIn('admin@acme.example', PASSWORD);
  await member.signIn('member@acme.example', PASSWORD);
  await partner.signIn('owner@agency.example', PASSWORD);
});
afterAll(() => svc.close());

describe('closing a story by hand', () => {
  it('"not about us" closes it, and detection ignores the phrase from then on', async () => {
    const page = await story(
      'Acme Road closes for repairs',
      'Acme Road in Springfield closes for two weeks of repairs. Drivers should use the bypass, the council said.',
    );
    const html = (await admin.get(page)).html;
    // The form suggests the place the article names the brand, with its next word.
    expect(html).toContain('name="exclude_phrase" maxlength="100" value="Acme Road"');
    expect(namesBrand('Traffic on Acme Road is slow.', await acmeTerms())).toBe(true);

    const r = await admin.post(`${page}/close`, {
      reason: 'not_about_us',
      teach: 'on',
      exclude_phrase: 'Acme Road',
    });
    expect(r.location).toBe(`${page}?done=closed`);
    const closed = (await admin.get(page)).html;
    expect(closed).toMatch(
      /<dt>Status<\/dt><dd><span class="status">closed<\/span> <span class="muted">\(not about us, admin@acme\.example\)/,
    );
    expect(closed).toContain(
      'closed the story: not about us, and detection now ignores “Acme Road”',
    );
    expect(closed).toContain('>Reopen</button>');

    const terms = await acmeTerms();
    expect(terms.match?.exclude).toEqual(['Acme Road']);
    expect(namesBrand('Traffic on Acme Road is slow.', terms)).toBe(false);
    expect(namesBrand('Acme recalls its kettles.', terms)).toBe(true);
    // The brands page shows it among the excluded phrases, where an admin can take it out.
    expect((await admin.get('/app/brands')).html).toContain('Acme Road');

    // An article about the road makes no story now; the phrase again is kept once.
    await expect(
      story('Acme Road reopens', 'Acme Road reopens on Monday, the council said after the works.'),
    ).rejects.toThrow('brand not mentioned');
    const again = await story();
    await admin.post(`${again}/close`, {
      reason: 'not_about_us',
      teach: 'on',
      exclude_phrase: 'acme road',
    });
    expect((await acmeTerms()).match?.exclude).toEqual(['Acme Road']);
  });

  it('refuses a phrase that would exclude nothing or everything, and changes nothing', async () => {
    const page = await story(
      'Acme recalls kettles',
      'Acme recalls its kettles after reports of burns, the company said today.',
    );
    const before = (await acmeTerms()).match?.exclude;
    const everything = await admin.post(`${page}/close`, {
      reason: 'not_about_us',
      teach: 'on',
      exclude_phrase: 'Acme',
    });
    expect(everything.status).toBe(400);
    expect(everything.html).toContain('is the brand&#39;s name itself');
    const nothing = await admin.post(`${page}/close`, {
      reason: 'not_about_us',
      teach: 'on',
      exclude_phrase: 'kettle recall',
    });
    expect(nothing.status).toBe(400);
    expect(nothing.html).toContain('does not name Acme, so it would exclude nothing');
    const badReason = await admin.post(`${page}/close`, { reason: 'bored' });
    expect(badReason.status).toBe(400);
    expect(await status(admin, page)).toBe('new');
    expect((await acmeTerms()).match?.exclude).toEqual(before);
    // Another reason, with the phrase the form fills in and even the box ticked, teaches
    // nothing: the phrase goes only with "not about us".
    const handled = await admin.post(`${page}/close`, {
      reason: 'handled',
      teach: 'on',
      exclude_phrase: 'Acme kettles',
    });
    expect(handled.status).toBe(303);
    expect(await status(admin, page)).toBe('closed');
    expect((await acmeTerms()).match?.exclude).toEqual(before);
    // Not about us, without the box ticked, teaches nothing either.
    const other = await story(
      'Acme recalls toasters',
      'Acme recalls its toasters after reports of fires, the company said.',
    );
    await admin.get(other);
    await admin.post(`${other}/close`, { reason: 'not_about_us', exclude_phrase: 'Acme toasters' });
    expect(await status(admin, other)).toBe('closed');
    expect((await acmeTerms()).match?.exclude).toEqual(before);
  });

  it('a member or a partner closes without teaching detection; the form offers them no phrase', async () => {
    const page = await story(
      'Acme Lane works begin',
      'Acme Lane works begin on Monday, the council said in a statement.',
    );
    const html = (await member.get(page)).html;
    expect(html).toContain('Close the story');
    expect(html).not.toContain('name="exclude_phrase"');
    const taught = await member.post(`${page}/close`, {
      reason: 'not_about_us',
      teach: 'on',
      exclude_phrase: 'Acme Lane works',
    });
    expect(taught.status).toBe(403);
    expect(await status(member, page)).toBe('new');

    expect((await partner.get(page)).html).not.toContain('name="exclude_phrase"');
    expect(
      (
        await partner.post(`${page}/close`, {
          reason: 'not_about_us',
          teach: 'on',
          exclude_phrase: 'Acme Lane works',
        })
      ).status,
    ).toBe(403);
    expect((await partner.post(`${page}/close`, { reason: 'handled' })).status).toBe(303);
    expect(await status(partner, page)).toBe('closed');
    expect((await acmeTerms()).match?.exclude ?? []).not.toContain('Acme Lane works');
  });

  it('reopens to where the work was: new, assigned, or in progress; twice is a 409', async () => {
    const page = await story();
    expect((await member.post(`${page}/close`, { reason: 'no_action' })).status).toBe(303);
    expect((await member.post(`${page}/close`, { reason: 'no_action' })).status).toBe(409);
    expect((await member.post(`${page}/reopen`)).location).toBe(`${page}?done=reopened`);
    expect(await status(member, page)).toBe('new');
    expect((await member.post(`${page}/reopen`)).status).toBe(409);

    await admin.post(`${page}/assign-story`, { assignee: 'member@acme.example' });
    await admin.post(`${page}/close`, { reason: 'handled' });
    await admin.post(`${page}/reopen`);
    expect(await status(admin, page)).toBe('assigned');

    await admin.post(`${page}/unlock`);
    await admin.post(`${page}/assign-phase`, { phase: '1', assignee: 'member@acme.example' });
    await admin.post(`${page}/close`, { reason: 'handled' });
    await admin.post(`${page}/reopen`);
    expect(await status(admin, page)).toBe('in progress');
    const activity = (await admin.get(page)).html;
    expect(activity).toContain('admin@acme.example reopened the story.');
    expect(activity).toContain('admin@acme.example closed the story: handled.');
  });

  it('a foreign or unknown story is not found, the same', async () => {
    const other = await createAccount(svc.app, 'Other', 'pro');
    await addUser(svc.app, {
      accountId: other,
      email: 'x@other.example',
      password: PASSWORD,
      role: 'owner',
    });
    const stranger = new PortalClient(svc.url);
    await stranger.signIn('x@other.example', PASSWORD);
    const page = await story();
    await stranger.get('/app');
    const foreign = await stranger.post(`${page}/close`, { reason: 'handled' });
    const unknown = await stranger.post('/app/stories/nowhere.example/evt-1/close', {
      reason: 'handled',
    });
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(await status(admin, page)).toBe('new');
  });
});

describe('what the story page offers', () => {
  it('no form that would be refused: a partner does not assign; an unverified brand publishes no note', async () => {
    const page = await story();
    const theirs = (await partner.get(page)).html;
    expect(theirs).not.toContain(`action="${page}/assign-story"`);
    expect(theirs).toContain("assigned by acme.example's own team");
    expect(theirs).toContain(`action="${page}/note"`);
    const own = (await admin.get(page)).html;
    expect(own).toContain(`action="${page}/assign-story"`);
    expect(own).toContain(`action="${page}/note"`);

    const acme = await svc.app.db
      .selectFrom('brands')
      .select('account_id')
      .where('host', '=', 'acme.example')
      .executeTakeFirstOrThrow();
    await addBrand(svc.app, {
      accountId: acme.account_id,
      host: 'acme-new.example',
      name: 'Acme',
      verified: false,
    });
    const brand = await requireBrandByHost(svc.app, 'acme-new.example');
    const { event_uri } = await importStory(svc.app, {
      brand,
      article: {
        url: `https://news.example.org/new/${++n}`,
        title: 'Acme opens a shop',
        publisher: 'Example News',
        published_at: '2026-11-20',
        text: 'Acme opens a shop in the old town, the company said on Monday morning.',
      },
      actor: 'operator',
    });
    const unverified = `/app/stories/acme-new.example/${encodeURIComponent(event_uri)}`;
    const html = (await admin.get(unverified)).html;
    expect(html).not.toContain(`action="${unverified}/note"`);
    expect(html).toContain('needs acme-new.example verified first');
    // And refused if posted anyway, as the form is not there.
    expect((await admin.post(`${unverified}/note`, { text: 'Hello.' })).status).toBe(403);
  });
});
