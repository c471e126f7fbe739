import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { createKey } from '../../src/domain/api-key-admin.js';
import { addBrand, requireBrandByHost } from '../../src/domain/brands.js';
import { importStory } from '../../src/domain/import-story.js';
import { startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';

/**
 * search_stories on the database under test: the same stories and expectations run on
 * SQLite (FTS5) and PostgreSQL (full-text search), so both find the same stories.
 */
let svc: TestService;
let key: string;
let scopedKey: string;
const uris: Record<string, string> = {};

const story = async (
  name: string,
  host: string,
  a: {
    title: string;
    text: string;
    publisher?: string;
    host?: string;
    day?: string;
    language?: string | null;
    sentiment?: number | null;
  },
) => {
  const brand = await requireBrandByHost(svc.app, host);
  const { event_uri } = await importStory(svc.app, {
    brand,
    actor: 'operator',
    detectedAt: `${a.day ?? '2026-11-20'}T09:00:00.000Z`,
    article: {
      url: `https://${a.host ?? 'news.example.org'}/${name}`,
      title: a.title,
      text: a.text,
      publisher: a.publisher ?? 'Example News',
      published_at: a.day ?? '2026-11-20',
      ...(a.language !== undefined && { language: a.language }),
      ...(a.sentiment !== undefined && { sentiment: a.sentiment }),
    },
  });
  uris[name] = event_uri;
};

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_PER_MINUTE: '2000' }, { runJobs: false });
  const acme = await createAccount(svc.app, 'Acme', 'partner');
  const other = await createAccount(svc.app, 'Other', 'partner');
  for (const email of ['ana@acme.example', 'bo@acme.example']) {
    await addUser(svc.app, {
      accountId: acme,
      email,
      password: 'correct horse battery',
      role: 'owner',
    });
  }
  for (const host of ['acme.example', 'acme-shop.example']) {
    await addBrand(svc.app, { accountId: acme, host, name: 'Acme', verified: true });
  }
  await addBrand(svc.app, {
    accountId: other,
    host: 'other.example',
    name: 'Other',
    verified: true,
  });
  key = (await createKey(svc.app, { accountId: acme, role: 'owner', scope: null, actor: 't' })).key;
  scopedKey = (
    await createKey(svc.app, {
      accountId: acme,
      role: 'owner',
      scope: ['acme-shop.example'],
      actor: 't',
    })
  ).key;

  await story('kettle', 'acme.example', {
    title: 'Acme recalls kettles after injuries',
    text: 'Acme announced a recall of its kettles after burn injuries. Regulators are looking into the hinge.',
    host: 'zanzibar-gazette.example',
    day: '2026-11-02',
    language: 'en',
    sentiment: -0.6,
  });
  await story('cafe', 'acme.example', {
    title: 'Acme ouvre un Café Crème à Paris',
    text: 'Acme a ouvert un café à Paris. Les clients apprécient le nouveau lieu près de la gare.',
    day: '2026-11-10',
    language: 'fr',
    sentiment: null,
  });
  await story('award', 'acme.example', {
    title: 'Acme wins design award',
    text: 'The new Acme product line won a national design award. Judges praised the launch.',
    day: '2026-11-15',
    language: 'en',
    sentiment: 0.7,
  });
  await story('shop', 'acme-shop.example', {
    title: 'Acme shop kettles sold out',
    text: 'Acme kettles sold out in the online shop within an hour of the launch.',
    day: '2026-11-18',
    language: 'en',
    sentiment: 0.1,
  });
  await story('theirs', 'other.example', {
    title: 'Quuxcorp recalls kettles',
    text: 'Other announced a recall of Quuxcorp kettles after injuries.',
    day: '2026-11-19',
  });
  for (let n = 0; n < 7; n++) {
    await story(`many${n}`, 'acme.example', {
      title: `Acme bulletin ${n} about widgets`,
      text: `Acme published bulletin ${n} about its widgets this week.`,
      day: `2026-10-0${n + 1}`,
    });
  }
}, 60_000);
afterAll(() => svc.close());

const search = async (query: Record<string, string | number>, k = key) => {
  const res = await svc.request('GET', '/v1/stories/search', { key: k, query });
  return res;
};
const found = async (query: Record<string, string | number>, k = key) => {
  const res = await search(query, k);
  expect(res.status, res.text).toBe(200);
  return (res.body.stories as { event_uri: string }[]).map((s) => s.event_uri);
};
const named = (...names: string[]) => names.map((n) => uris[n]);
const unlocked = async (name: string) =>
  (
    await svc.request('GET', '/v1/story', {
      key,
      query: { brand: 'acme.example', event_uri: uris[name] },
    })
  ).body.story.advisory.locked === false;
const unlock = async (name: string) => {
  const res = await svc.request('POST', '/v1/advisory', {
    key,
    body: { brand: 'acme.example', event_uri: uris[name] },
  });
  expect(res.status, res.text).toBe(200);
};

describe('search_stories', () => {
  it('finds every word, as a word or its start, in titles and summaries, newest first', async () => {
    expect(await found({ q: 'kettle' })).toEqual(named('shop', 'kettle'));
    expect(await found({ q: 'kettles recall' })).toEqual(named('kettle'));
    expect(await found({ q: 'KETTLES, injur…' })).toEqual(named('kettle'));
    expect(await found({ q: 'nothing-like-this' })).toEqual([]);
    // One letter alone is no word to look for (as a prefix it would match nearly all).
    expect(await found({ q: 'kettle s' })).toEqual(named('shop', 'kettle'));
    const res = await search({ q: 'kettle' });
    expect(res.body.stories[0]).toMatchObject({
      brand: 'acme-shop.example',
      title: 'Acme shop kettles sold out',
      status: 'new',
      unlocked: false,
    });
  });

  it('ignores accents and case, both ways', async () => {
    expect(await found({ q: 'cafe creme' })).toEqual(named('cafe'));
    expect(await found({ q: 'CAFÉ' })).toEqual(named('cafe'));
    expect(await found({ q: 'apprecient' })).toEqual(named('cafe'));
  });

  it("searches a story's sources only once it is unlocked", async () => {
    // The source's address is in no title or summary (shown to anyone): only unlocked.
    if (!(await unlocked('kettle'))) expect(await found({ q: 'zanzibar' })).toEqual([]);
    await unlock('kettle');
    expect(await found({ q: 'zanzibar gazette' })).toEqual(named('kettle'));
    expect(await found({ q: 'hinge' })).toEqual(named('kettle'));
  });

  it('narrows by severity, status, dates, topic, sentiment and language', async () => {
    expect(await found({ q: 'acme', severity: 'low,medium', topic: 'product-safety' })).toEqual([]);
    const safety = await found({ topic: 'product-safety' });
    expect(safety).toContain(uris.kettle);
    expect(safety).not.toContain(uris.theirs);
    const kettle = (await search({ q: 'kettles recall' })).body.stories[0];
    expect(await found({ q: 'kettle', severity: kettle.severity })).toContain(uris.kettle);
    expect(await found({ from: '2026-11-10', to: '2026-11-15' })).toEqual(named('award', 'cafe'));
    expect(await found({ from: '2026-11-16' })).toEqual(named('shop'));
    expect(await found({ from: '2026-11-18', to: '2026-11-18' })).toEqual(named('shop'));
    expect(await found({ from: '2026-11-18', to: '9999-12-31' })).toEqual(named('shop'));
    expect(await found({ sentiment: 'negative' })).toEqual(named('kettle'));
    expect(await found({ sentiment: 'positive' })).toEqual(named('award'));
    const neutral = await found({ sentiment: 'neutral' });
    expect(neutral).toContain(uris.shop);
    for (const n of ['kettle', 'award', 'cafe']) expect(neutral).not.toContain(uris[n]);
    expect(await found({ language: 'fr' })).toEqual(named('cafe'));
    expect(await found({ status: 'closed' })).toEqual([]);
    expect((await found({ status: 'new,assigned' })).length).toBe(11);
  });

  it('narrows by assignee: an email, nobody; "me" is for people', async () => {
    const assign = await svc.request('POST', '/v1/story/assign', {
      key,
      body: { brand: 'acme.example', event_uri: uris.award, assignee: 'ana@acme.example' },
    });
    expect(assign.status, assign.text).toBe(200);
    expect(await found({ assignee: 'Ana@Acme.example' })).toEqual(named('award'));
    expect(await found({ assignee: 'nobody', q: 'award' })).toEqual([]);
    expect(await found({ assignee: 'nobody@nowhere.example' })).toEqual([]);
    const me = await search({ assignee: 'me' });
    expect(me.status).toBe(400);
    expect(me.body.error).toMatch(/assignee/);
  });

  it('pages with a cursor: every match once, in order', async () => {
    const all = await found({ q: 'widgets', limit: 50 });
    expect(all).toHaveLength(7);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await search({ q: 'widgets', limit: 3, ...(cursor && { cursor }) });
      expect(res.status).toBe(200);
      seen.push(...res.body.stories.map((s: { event_uri: string }) => s.event_uri));
      cursor = res.body.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(all);
  });

  it("keeps to the caller's brands: a foreign brand is unknown, a scoped key sees its scope", async () => {
    expect(await found({ q: 'quuxcorp' })).toEqual([]);
    const foreign = await search({ brand: 'other.example', q: 'kettle' });
    expect(foreign.status).toBe(404);
    const unknown = await search({ brand: 'nobody.example', q: 'kettle' });
    expect(unknown.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
    expect(await found({ q: 'kettle' }, scopedKey)).toEqual(named('shop'));
    expect(await found({ brand: 'acme.example', q: 'kettle' })).toEqual(named('kettle'));
  });

  it('answers bad input with 400 and a clear error', async () => {
    for (const [query, field] of [
      [{ severity: 'high,urgent' }, 'severity'],
      [{ from: '2026-13-01' }, 'from'],
      [{ from: '2026-11-10', to: '2026-11-01' }, 'from'],
      [{ topic: 'gossip' }, 'topic'],
      [{ sentiment: 'angry' }, 'sentiment'],
      [{ language: 'english' }, 'language'],
      [{ q: 'x'.repeat(201) }, 'q'],
      [{ cursor: 'not-a-cursor' }, 'cursor'],
    ] as const) {
      const res = await search(query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.error).toMatch(new RegExp(field));
    }
  });

  it('gives documents to the stories stored before search (the backfill job)', async () => {
    await unlock('kettle');
    await svc.app.db.deleteFrom('story_documents').execute();
    expect(await found({ q: 'kettle' })).toEqual([]);
    await svc.app.db
      .insertInto('jobs')
      .values({
        id: 'job_backfill_test',
        name: 'search.backfill',
        payload: '{}',
        status: 'queued',
        attempts: 0,
        max_attempts: 8,
        run_at: '2000-01-01T00:00:00.000Z',
        locked_until: null,
        locked_by: null,
        last_error: null,
        result: null,
        created_at: '2000-01-01T00:00:00.000Z',
        updated_at: '2000-01-01T00:00:00.000Z',
      })
      .execute();
    await svc.app.jobs.drain();
    expect(await found({ q: 'kettle' })).toEqual(named('shop', 'kettle'));
    expect(await found({ q: 'zanzibar' })).toEqual(named('kettle'));
    expect(await found({ language: 'fr' })).toEqual(named('cafe'));
  });

  it('is the v1_search_stories tool over MCP, with the same answer as REST', async () => {
    const client = new Client({ name: 'search-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), {
        requestInit: { headers: { 'x-api-key': key } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      const tool = tools.find((t) => t.name === 'v1_search_stories');
      expect(tool?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      const r = (await client.callTool({
        name: 'v1_search_stories',
        arguments: { q: 'kettle', severity: 'low,medium,high,critical' },
      })) as unknown as { structuredContent: { stories: { event_uri: string }[] } };
      expect(r.structuredContent.stories.map((s) => s.event_uri)).toEqual(named('shop', 'kettle'));
    } finally {
      await client.close();
    }
  });
});

describe('search in the portal', () => {
  const signedIn = async (email: string) => {
    const c = new PortalClient(svc.url);
    await c.signIn(email, 'correct horse battery');
    return c;
  };

  it('searches from the stories list, and says what is wrong with a filter', async () => {
    const ana = await signedIn('ana@acme.example');
    const page = await ana.get('/app/stories?q=kettle&severity=&status=');
    expect(page.status).toBe(200);
    expect(page.html).toContain('role="search"');
    expect(page.html).toContain('value="kettle"');
    expect(page.html).toContain('Acme shop kettles sold out');
    expect(page.html).not.toContain('Acme wins design award');
    const bad = await ana.get('/app/stories?from=2026-02-31');
    expect(bad.status).toBe(400);
    expect(bad.html).toMatch(/role="alert">From: must be a real date/);
  });

  it('saves a search per person, lists it, opens it, deletes it', async () => {
    const ana = await signedIn('ana@acme.example');
    const bo = await signedIn('bo@acme.example');
    await ana.get('/app/stories?q=kettle');
    const saved = await ana.post('/app/views', {
      name: 'Kettles',
      query: 'q=kettle&severity=&cursor=abc&evil=1',
    });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe('/app/stories?q=kettle&done=view-saved');
    const list = (await ana.get('/app/stories')).html;
    expect(list).toContain('<a href="/app/stories?q=kettle">Kettles</a>');
    expect((await bo.get('/app/stories')).html).not.toContain('Kettles');
    // The same name again replaces the search.
    await ana.post('/app/views', { name: 'Kettles', query: 'q=kettle&brand=acme.example' });
    const again = (await ana.get('/app/stories')).html;
    expect(again).toContain('<a href="/app/stories?brand=acme.example&amp;q=kettle">Kettles</a>');
    const id = /action="\/app\/views\/(view_[a-z0-9]+)\/delete"/.exec(again)?.[1];
    expect(id).toBeTruthy();
    await bo.get('/app/stories');
    expect((await bo.post(`/app/views/${id}/delete`)).status).toBe(404);
    expect((await ana.post(`/app/views/${id}/delete`)).location).toBe(
      '/app/stories?done=view-deleted',
    );
    expect((await ana.get('/app/stories')).html).not.toContain('>Kettles</a>');
    expect((await ana.post('/app/views', { name: ' ', query: 'q=x' })).status).toBe(400);
  });
});
