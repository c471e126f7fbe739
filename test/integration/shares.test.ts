import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBrandByHost } from '../../src/domain/brands.js';
import { addShareGuest } from '../../src/domain/shares.js';
import { listOutbox } from '../../src/email/outbox.js';
import { startService, type TestService } from '../support/harness.js';
import { seedWorld, type World } from '../support/world.js';

/** Shares: the settings table, the public and guests pages, the public index. */
let svc: TestService;
let w: World;
const BRAND = 'northwind.example';
let n = 300;

beforeAll(async () => {
  svc = await startService({}, { runJobs: false });
  w = await seedWorld(svc.app);
});
afterAll(() => svc.close());

const share = (event_uri: string, settings: Record<string, unknown>) =>
  svc.request('POST', '/v1/shares', {
    key: w.keys.owner,
    body: { brand: BRAND, event_uri, ...settings },
  });

/** A fresh story with an unlocked advisory (so a plan exists that must not leak). */
async function unlockedStory() {
  const event_uri = await w.story(BRAND, n++);
  await svc.app.db
    .updateTable('stories')
    .set({ unlocked_at: new Date().toISOString() })
    .where('event_uri', '=', event_uri)
    .execute();
  return event_uri;
}

const phaseTitles = async (event_uri: string) => {
  const r = await svc.request('GET', '/v1/story', {
    key: w.keys.owner,
    query: { brand: BRAND, event_uri },
  });
  return (r.body.story.advisory.phases as { title: string }[]).map((p) => p.title);
};

const fetchPage = async (url: string, cookie?: string) => {
  const r = await fetch(url, { headers: cookie ? { cookie } : {}, redirect: 'manual' });
  return { status: r.status, text: await r.text(), headers: r.headers };
};

const COMBINATIONS = ['public', 'guests'].flatMap((access) =>
  ['compact', 'briefing', 'full'].flatMap((mode) =>
    [false, true].map((listed) => ({ access, mode, listed })),
  ),
);

describe('share settings', () => {
  it.each(COMBINATIONS)('access $access, mode $mode, listed $listed', async (settings) => {
    const event_uri = await w.story(BRAND, n++);
    const r = await share(event_uri, settings);
    const refusal =
      settings.access === 'public' && settings.mode === 'full'
        ? 'mode: a public share shows at most the briefing; use access guests for full'
        : settings.access === 'guests' && settings.listed
          ? 'listed: only a public share can be listed'
          : null;
    if (refusal) {
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: refusal });
      // Refused, never corrected: nothing was created.
      const rows = await svc.app.db.selectFrom('shares').select('id').execute();
      const again = await share(event_uri, { access: 'public' });
      expect((await svc.app.db.selectFrom('shares').select('id').execute()).length).toBe(
        rows.length + 1,
      );
      expect(again.status).toBe(200);
    } else {
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        ok: true,
        brand: BRAND,
        event_uri,
        url: expect.stringMatching(new RegExp(`^${svc.url}/s/[A-Za-z0-9_-]{24}$`)),
        ...settings,
      });
    }
  });

  it('defaults to public briefing, unlisted; a retune keeps the URL', async () => {
    const event_uri = await w.story(BRAND, n++);
    const first = await share(event_uri, {});
    expect(first.body).toMatchObject({ access: 'public', mode: 'briefing', listed: false });
    const second = await share(event_uri, { access: 'guests', mode: 'full' });
    expect(second.body.url).toBe(first.body.url);
    expect(second.body).toMatchObject({ access: 'guests', mode: 'full', listed: false });
  });

  it('a new guests share is full by default (spec 4.2), over REST and MCP alike', async () => {
    const event_uri = await w.story(BRAND, n++);
    const r = await share(event_uri, { access: 'guests' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ access: 'guests', mode: 'full', listed: false });
  });

  it('a retune changes only what it names and keeps every omitted setting', async () => {
    const event_uri = await w.story(BRAND, n++);
    expect((await share(event_uri, { mode: 'compact', listed: true })).body).toMatchObject({
      access: 'public',
      mode: 'compact',
      listed: true,
    });
    // Omitting everything keeps everything (no reset to briefing or to unlisted).
    expect((await share(event_uri, {})).body).toMatchObject({
      access: 'public',
      mode: 'compact',
      listed: true,
    });
    expect((await share(event_uri, { mode: 'briefing' })).body).toMatchObject({
      access: 'public',
      mode: 'briefing',
      listed: true,
    });
    // To guests: the mode is kept; `listed` is a public share's, so the page leaves the index.
    expect((await share(event_uri, { access: 'guests' })).body).toMatchObject({
      access: 'guests',
      mode: 'briefing',
      listed: false,
    });
    expect((await share(event_uri, { access: 'guests', listed: true })).status).toBe(400);
    expect((await share(event_uri, { mode: 'full' })).body).toMatchObject({
      access: 'guests',
      mode: 'full',
      listed: false,
    });
    // Back to public: the kept full mode cannot be shown publicly, so it must be named.
    const toPublic = await share(event_uri, { access: 'public' });
    expect(toPublic.status).toBe(400);
    expect(toPublic.body).toEqual({
      error: 'mode: a public share shows at most the briefing; use access guests for full',
    });
    expect((await share(event_uri, { access: 'public', mode: 'briefing' })).body).toMatchObject({
      access: 'public',
      mode: 'briefing',
      listed: false,
    });
  });
});

describe('share pages', () => {
  it('a public page is anonymous and never shows the response plan', async () => {
    const event_uri = await unlockedStory();
    const titles = await phaseTitles(event_uri);
    const briefing = await share(event_uri, { access: 'public', mode: 'briefing' });
    const page = await fetchPage(briefing.body.url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Summary');
    expect(page.text).toContain('Sources');
    // Each source's language, detected from its text, beside it (and as the link's lang).
    expect(page.text).toContain('<span title="language">English</span>');
    expect(page.text).toMatch(/<a href="[^"]+" rel="noopener nofollow" lang="en">/);
    for (const t of titles) expect(page.text).not.toContain(t);
    expect(page.text).not.toContain('Response plan');
    // A briefing: severity as a badge, the brand in a top bar that leads nowhere (nothing
    // to sign in to), a print stylesheet that leaves out the bar and prints link targets.
    expect(page.text).toMatch(/<span class="badge sev-(low|medium|high|critical)">Severity: /);
    expect(page.text).toContain('<header class="top"><div class="bar"><span class="logo">');
    expect(page.text).not.toMatch(/href="\/(signin|app)?"/);
    expect(page.text).toContain('@media print{header.top');
    expect(page.text).toContain('Print it, or save it as a PDF, from your browser.');

    await share(event_uri, { access: 'public', mode: 'compact' });
    const compact = await fetchPage(briefing.body.url);
    expect(compact.text).not.toContain('Summary');
    expect(compact.text).toContain('Assessment');
  });

  it('a guests page shows nothing without sign-in; an invited guest signs in by email and sees the full advisory', async () => {
    const event_uri = await unlockedStory();
    const titles = await phaseTitles(event_uri);
    const created = await share(event_uri, { access: 'guests', mode: 'full' });
    const story = await svc.request('GET', '/v1/story', {
      key: w.keys.owner,
      query: { brand: BRAND, event_uri },
    });
    const anonymous = await fetchPage(created.body.url);
    expect(anonymous.status).toBe(200);
    expect(anonymous.text).toContain('shared with invited guests');
    expect(anonymous.text).not.toContain(story.body.story.title);
    expect(anonymous.text).not.toContain(story.body.story.advisory.executive_summary[0].text);

    const brand = await requireBrandByHost(svc.app, BRAND);
    await addShareGuest(svc.app, {
      access: { brand, relation: 'own' },
      eventUri: event_uri,
      email: 'Guest@Example.org',
      actor: 'test',
      byAccount: brand.account_id,
    });
    const signin = (email: string) =>
      fetch(`${created.body.url}/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email }).toString(),
      });
    const outsider = await signin('outsider@example.org');
    const invited = await signin('guest@example.org');
    // The same answer, whoever asks.
    expect(await outsider.text()).toBe(await invited.text());
    const mails = await listOutbox(svc.app, 50);
    expect(mails.some((m) => m.to === 'outsider@example.org')).toBe(false);
    const mail = mails.find((m) => m.to === 'guest@example.org')!;
    const link = /(http\S+\/g\/\S+)/.exec(mail.text)![1]!;
    const opened = await fetchPage(link);
    expect(opened.status).toBe(303);
    const cookie = opened.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const page = await fetchPage(created.body.url, cookie.split(';')[0]);
    expect(page.text).toContain(story.body.story.title);
    for (const t of titles) expect(page.text).toContain(t);
    // The session is for this share only: another guests share stays closed.
    const other = await share(await unlockedStory(), { access: 'guests', mode: 'full' });
    expect((await fetchPage(other.body.url, cookie.split(';')[0])).text).toContain(
      'shared with invited guests',
    );
  });

  it('retuning a listed public share to guests takes it out of public view and the index at once', async () => {
    const event_uri = await unlockedStory();
    const story = await svc.request('GET', '/v1/story', {
      key: w.keys.owner,
      query: { brand: BRAND, event_uri },
    });
    const created = await share(event_uri, { access: 'public', listed: true });
    expect((await fetchPage(`${svc.url}/shares`)).text).toContain(story.body.story.title);
    expect((await fetchPage(created.body.url)).text).toContain(story.body.story.title);
    await share(event_uri, { access: 'guests', mode: 'full' });
    expect((await fetchPage(`${svc.url}/shares`)).text).not.toContain(story.body.story.title);
    expect((await fetchPage(created.body.url)).text).not.toContain(story.body.story.title);
  });

  it("a summary sentence citing no source (a team's context, as proposals applied before wrote them) is never on the page", async () => {
    const event_uri = await unlockedStory();
    const story = await svc.app.db
      .selectFrom('stories')
      .select('id')
      .where('event_uri', '=', event_uri)
      .executeTakeFirstOrThrow();
    const live = await svc.app.db
      .selectFrom('advisories')
      .select(['id', 'executive_summary'])
      .where('story_id', '=', story.id)
      .where('kind', '=', 'live')
      .executeTakeFirstOrThrow();
    const summary = JSON.parse(live.executive_summary) as { text: string; cites: string[] }[];
    await svc.app.db
      .updateTable('advisories')
      .set({
        executive_summary: JSON.stringify([
          ...summary,
          { text: 'The brand says: Legal advises no admission of liability.', cites: [] },
        ]),
      })
      .where('id', '=', live.id)
      .execute();
    const page = await fetchPage((await share(event_uri, { access: 'public' })).body.url);
    expect(page.status).toBe(200);
    expect(page.text).toContain(summary[0]!.text.slice(0, 30));
    expect(page.text).not.toContain('admission of liability');
  });

  it('an unknown share token is a 404 page', async () => {
    expect((await fetchPage(`${svc.url}/s/${'a'.repeat(24)}`)).status).toBe(404);
    expect((await fetchPage(`${svc.url}/s/nope`)).status).toBe(404);
  });
});
