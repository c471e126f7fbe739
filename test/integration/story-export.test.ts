import { parse } from 'csv-parse/sync';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { deleteBrand } from '../../src/domain/brand-deletion.js';
import { addBrand, requireBrandByHost } from '../../src/domain/brands.js';
import { importStory } from '../../src/domain/import-story.js';
import { searchStories } from '../../src/operations/stories/search-stories.js';
import { EXPORTS_AT_ONCE, PORTAL_WINDOWS } from '../../src/web/portal/limits.js';
import { startService, type TestService } from '../support/harness.js';
import { manualClock } from '../support/manual-clock.js';
import { PortalClient } from '../support/portal-client.js';
import { article } from '../support/world.js';

/** The stories list as CSV: every story the reader may see, streamed page by page. */
let svc: TestService;
let c: PortalClient;
let acme: string;
const STORIES = 205;
// The portal's per-person windows are the clock's: each test starts in a new one.
const clock = manualClock();
beforeEach(() => clock.advance(PORTAL_WINDOWS.export.ms + 1000));

beforeAll(async () => {
  svc = await startService({}, { runJobs: false, clock });
  acme = await createAccount(svc.app, 'Acme', 'pro');
  const other = await createAccount(svc.app, 'Other', 'pro');
  await addUser(svc.app, {
    accountId: acme,
    email: 'member@acme.example',
    password: 'correct horse battery',
    role: 'member',
  });
  await addBrand(svc.app, { accountId: acme, host: 'acme.example', name: 'Acme', verified: true });
  await addUser(svc.app, {
    accountId: acme,
    email: 'third@acme.example',
    password: 'correct horse battery',
    role: 'member',
  });
  await addUser(svc.app, {
    accountId: other,
    email: 'reader@other.example',
    password: 'correct horse battery',
    role: 'member',
  });
  await addBrand(svc.app, {
    accountId: other,
    host: 'other.example',
    name: 'Other',
    verified: true,
  });
  const brand = await requireBrandByHost(svc.app, 'acme.example');
  for (let n = 1; n < STORIES; n++) {
    await importStory(svc.app, { brand, article: article('Acme', n), actor: 'operator' });
  }
  // A title a spreadsheet would run as a formula.
  await importStory(svc.app, {
    brand,
    article: { ...article('Acme', 999), title: '=HYPERLINK("http://evil.example","Acme")' },
    actor: 'operator',
  });
  const theirs = await requireBrandByHost(svc.app, 'other.example');
  await importStory(svc.app, { brand: theirs, article: article('Other', 1), actor: 'operator' });
  c = new PortalClient(svc.url);
  await c.signIn('member@acme.example', 'correct horse battery');
}, 120_000);
afterAll(() => svc.close());

const csv = async (query = '') => {
  const res = await fetch(`${svc.url}/app/stories.csv${query}`, {
    headers: { cookie: c.cookieHeader() },
  });
  const text = await res.text();
  const isCsv = res.headers.get('content-type')?.startsWith('text/csv');
  return {
    res,
    text,
    rows: (isCsv ? parse(text, { columns: true }) : []) as Record<string, string>[],
  };
};

describe('stories as CSV', () => {
  it('every story of the reader, across pages, newest first, as an attachment', async () => {
    const { res, rows } = await csv();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="stories-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    expect(rows).toHaveLength(STORIES);
    expect(Object.keys(rows[0]!)).toEqual([
      'detected_at',
      'brand',
      'title',
      'severity',
      'status',
      'assignee',
      'advisory',
      'assessment',
      'spread',
      'last_activity_at',
      'link',
    ]);
    expect(new Set(rows.map((r) => r.brand))).toEqual(new Set(['acme.example']));
    const times = rows.map((r) => r.detected_at!);
    expect([...times].sort().reverse()).toEqual(times);
    expect(rows[0]!.link).toMatch(new RegExp(`^${svc.url}/app/stories/acme\\.example/evt_`));
    // The formula is written as text.
    expect(rows.find((r) => r.title!.includes('HYPERLINK'))!.title).toBe(
      `'=HYPERLINK("http://evil.example","Acme")`,
    );
  });

  it('takes the list’s filters; a foreign brand is not found; without a session, sign in', async () => {
    const { rows } = await csv('?brand=acme.example&status=closed');
    expect(rows).toEqual([]);
    const severities = new Set((await csv('?severity=high')).rows.map((r) => r.severity));
    expect([...severities].every((s) => s === 'high')).toBe(true);
    const foreign = await csv('?brand=other.example');
    expect(foreign.res.status).toBe(404);
    expect(JSON.parse(foreign.text)).toEqual({ error: 'not found' });
    expect((await csv('?severity=enormous')).res.status).toBe(400);
    const anonymous = await fetch(`${svc.url}/app/stories.csv`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe('/signin?next=%2Fapp%2Fstories.csv');
    expect((await c.get('/app/stories')).html).toContain('href="/app/stories.csv" download');
  });

  it('takes the list’s search: its words, and the link carries them', async () => {
    const { rows } = await csv('?q=hyperlink');
    expect(rows.map((r) => r.title)).toEqual([`'=HYPERLINK("http://evil.example","Acme")`]);
    expect((await c.get('/app/stories?q=hyperlink&severity=')).html).toContain(
      'href="/app/stories.csv?q=hyperlink" download',
    );
  });
});

/**
 * A page that fails after the export has started (the brand deleted between two pages, the
 * database gone) ends that one response, cut short so the download is seen to fail; the
 * process and every other request go on. With pipe() the source's error went unhandled
 * and ended the process.
 */
describe('an export whose source fails mid-response', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** The export's second page runs `before` first: the fault lands mid-response. */
  const failSecondPage = (before: () => Promise<void>) => {
    const handler = searchStories.handler.bind(searchStories);
    vi.spyOn(searchStories, 'handler').mockImplementation(async (ctx, input) => {
      if (input.cursor) await before();
      return handler(ctx, input);
    });
  };

  /** The download as a client reads it: cut (the body errors) or whole. */
  const download = async (query: string) => {
    const res = await fetch(`${svc.url}/app/stories.csv${query}`, {
      headers: { cookie: c.cookieHeader() },
    });
    expect(res.status).toBe(200);
    return res.text().then(
      (text) => ({ cut: false, text }),
      () => ({ cut: true, text: '' }),
    );
  };

  it('the brand deleted between two pages: the response is cut, the service goes on', async () => {
    await addBrand(svc.app, {
      accountId: acme,
      host: 'doomed.example',
      name: 'Doomed',
      verified: true,
    });
    const doomed = await requireBrandByHost(svc.app, 'doomed.example');
    for (let n = 1; n <= 201; n++) {
      await importStory(svc.app, {
        brand: doomed,
        article: article('Doomed', n),
        actor: 'operator',
      });
    }
    failSecondPage(async () => {
      await deleteBrand(svc.app, doomed, 'test');
    });
    expect((await download('?brand=doomed.example')).cut).toBe(true);
    vi.restoreAllMocks();
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
    expect((await csv()).rows).toHaveLength(STORIES);
  }, 120_000);

  it('a failure that is a bug ends the response too, logged, and the next export is whole', async () => {
    failSecondPage(async () => {
      throw new Error('the database went away');
    });
    expect((await download('')).cut).toBe(true);
    vi.restoreAllMocks();
    expect((await csv()).rows).toHaveLength(STORIES);
  });
});

/**
 * One person hammering exports cannot take the instance: a window of exports a minute,
 * and a few streaming at once per person and per instance (bench/portal-exports.js
 * measures what the others see meanwhile).
 */
describe('export limits', () => {
  let letGo = () => {};
  afterEach(() => {
    letGo(); // a failed test leaves no export holding its slot
    vi.restoreAllMocks();
  });

  it(`${PORTAL_WINDOWS.export.limit} exports a minute per person, then 429 with Retry-After`, async () => {
    for (let i = 0; i < PORTAL_WINDOWS.export.limit; i++) {
      expect((await csv('?severity=critical')).res.status).toBe(200);
    }
    const refused = await csv('?severity=critical');
    expect(refused.res.status).toBe(429);
    expect(JSON.parse(refused.text)).toEqual({ error: 'rate limit exceeded' });
    const wait = Number(refused.res.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    // Another person's window is their own.
    const other = new PortalClient(svc.url);
    await other.signIn('reader@other.example', 'correct horse battery');
    const theirs = await fetch(`${svc.url}/app/stories.csv`, {
      headers: { cookie: other.cookieHeader() },
    });
    expect(theirs.status).toBe(200);
    await theirs.text();
    // A new window, a new allowance.
    await clock.advance(PORTAL_WINDOWS.export.ms);
    expect((await csv('?severity=critical')).res.status).toBe(200);
  });

  it(`${EXPORTS_AT_ONCE.person} streaming at once per person, ${EXPORTS_AT_ONCE.instance} per instance; slots free once they end`, async () => {
    // Exports that stop after their first page until let go: they are streaming.
    const held = new Promise<void>((r) => {
      letGo = r;
    });
    const handler = searchStories.handler.bind(searchStories);
    vi.spyOn(searchStories, 'handler').mockImplementation(async (ctx, input) => {
      if (input.cursor) await held;
      return handler(ctx, input);
    });
    const streaming = [];
    for (let i = 0; i < EXPORTS_AT_ONCE.person; i++) {
      const res = await fetch(`${svc.url}/app/stories.csv`, {
        headers: { cookie: c.cookieHeader() },
      });
      expect(res.status).toBe(200);
      streaming.push(res);
    }
    const mine = await csv();
    expect(mine.res.status).toBe(429);
    expect(mine.res.headers.get('retry-after')).toBe('5');
    // HEAD answers the headers and reads nothing: it takes no slot (it read every page).
    const head = await fetch(`${svc.url}/app/stories.csv`, {
      method: 'HEAD',
      headers: { cookie: c.cookieHeader() },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    // Others still export while the instance has slots; once its four stream, nobody more.
    const third = new PortalClient(svc.url);
    await third.signIn('third@acme.example', 'correct horse battery');
    for (let i = 0; i < EXPORTS_AT_ONCE.instance - EXPORTS_AT_ONCE.person; i++) {
      const res = await fetch(`${svc.url}/app/stories.csv`, {
        headers: { cookie: third.cookieHeader() },
      });
      expect(res.status).toBe(200);
      streaming.push(res);
    }
    const other = new PortalClient(svc.url);
    await other.signIn('reader@other.example', 'correct horse battery');
    const full = await fetch(`${svc.url}/app/stories.csv`, {
      headers: { cookie: other.cookieHeader() },
    });
    expect(full.status).toBe(429);
    expect(full.headers.get('retry-after')).toBe('5');
    letGo();
    for (const res of streaming)
      expect(parse(await res.text(), { columns: true })).toHaveLength(STORIES);
    expect((await csv()).rows).toHaveLength(STORIES);
  });
});

describe('portal windows', () => {
  it(`${PORTAL_WINDOWS.search.limit} searches a minute per person, then a 429 page with Retry-After`, async () => {
    for (let i = 0; i < PORTAL_WINDOWS.search.limit; i++) {
      expect((await c.get(`/app/stories?q=story${i}`)).status).toBe(200);
    }
    const refused = await fetch(`${svc.url}/app/stories?q=more`, {
      headers: { cookie: c.cookieHeader() },
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.text()).toContain('Too many requests');
  });

  it(`${PORTAL_WINDOWS.post.limit} form posts a minute per person, then 429 with Retry-After`, async () => {
    await c.get('/app/stories');
    let last = { status: 0 } as Awaited<ReturnType<PortalClient['post']>>;
    for (let i = 0; i <= PORTAL_WINDOWS.post.limit; i++) {
      last = await c.post('/app/views/svw_none/delete');
      if (last.status === 429) break;
    }
    expect(last.status).toBe(429);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(last.html).toContain('Too many requests');
  });
});
