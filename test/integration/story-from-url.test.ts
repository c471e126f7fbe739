import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addBrand } from '../../src/domain/brands.js';
import { storySources } from '../../src/domain/stories.js';
import { situationOf } from '../../src/pipeline/situation.js';
import { startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';
import { seedWorld, type World } from '../support/world.js';

/** POST /v1/stories/from-url end to end, against a local news site. */
let svc: TestService;
let w: World;
let site: http.Server;
let base: string;
const BRAND = 'northwind.example';

// Six paragraphs: over 150 words, so the page reads as whole, not cut by a paywall.
const article = (title: string, mention: string, canonical?: string) => `<!doctype html>
<html lang="en"><head><title>${title} | The Ledger</title>
<meta property="og:site_name" content="The Ledger">
<meta property="article:published_time" content="2026-11-18T09:00:00Z">
${canonical ? `<link rel="canonical" href="${canonical}">` : ''}
</head><body><nav>Home · Business · Tech</nav><article><h1>${title}</h1>
${[1, 2, 3, 4, 5, 6]
  .map(
    (i) =>
      `<p>Paragraph ${i}. ${mention} said on Tuesday that its supply contracts with three regional distributors will be renegotiated after a dispute over late deliveries and disputed invoices reached the courts.</p>`,
  )
  .join('\n')}
</article><footer>© The Ledger</footer></body></html>`;

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const pages: Record<string, string> = {
      '/business/northwind-dispute': article('Northwind in contract dispute', 'Northwind'),
      '/amp/northwind-dispute': article(
        'Northwind in contract dispute',
        'Northwind',
        '/business/northwind-dispute',
      ),
      '/business/other-company': article('Globex in contract dispute', 'Globex Corporation'),
      // Northwind is named only in the share links inside the article.
      '/business/share-links': article('Globex in contract dispute', 'Globex Corporation').replace(
        '</article>',
        '<p>Share this article on Twitter | Facebook | Northwind</p></article>',
      ),
    };
    // A page that states no publication date.
    pages['/undated/northwind'] = article('Northwind supply row', 'Northwind').replace(
      /<meta property="article:published_time"[^>]*>/,
      '',
    );
    // A column, by its own metadata only (its URL says nothing).
    pages['/business/northwind-view'] = article(
      'Northwind’s contracts are a disgrace',
      'Northwind',
    ).replace('<head>', '<head><meta property="article:section" content="Opinion">');
    const page = pages[req.url ?? ''];
    if (req.url === '/legacy/northwind') {
      // An older CMS: windows-1252 bytes, declared only in the page's <meta>.
      const legacy = article(
        'Northwind’s “green” claims questioned – €2m at stake',
        'Northwind',
      ).replace(
        '<head>',
        '<head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252">',
      );
      res.writeHead(200, { 'content-type': 'text/html' }).end(iconv.encode(legacy, 'windows-1252'));
    } else if (req.url === '/feed.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    } else if (page) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    } else {
      res.writeHead(404).end();
    }
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  const port = (site.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  svc = await startService({ FETCH_ALLOW_HOSTS: `127.0.0.1:${port}` }, { runJobs: false });
  w = await seedWorld(svc.app);
});
afterAll(async () => {
  site.close();
  await svc.close();
});

const fromUrl = (url: string, brand = BRAND) =>
  svc.request('POST', '/v1/stories/from-url', { key: w.keys.owner, body: { brand, url } });
const jobOf = (job: string, brand = BRAND) =>
  svc.request('GET', '/v1/stories/from-url', { key: w.keys.owner, query: { brand, job } });

/** A Northwind brand of its own under another host: other tests file these pages too. */
const northwindAs = (host: string) =>
  addBrand(svc.app, { accountId: w.accounts.agency, host, name: 'Northwind', verified: true });

describe('story from URL', () => {
  it('queued → done → in the list; the same URL again → exists, nothing regenerated', async () => {
    // A Northwind brand of its own: another test files this article under northwind.example.
    const BRAND = 'fresh.northwind.example';
    await northwindAs(BRAND);
    const url = `${base}/business/northwind-dispute`;
    const queued = await fromUrl(url, BRAND);
    expect(queued.status).toBe(202);
    expect(queued.body).toEqual({
      ok: true,
      status: 'queued',
      job: expect.stringMatching(/^job_/),
    });
    expect((await jobOf(queued.body.job, BRAND)).body).toMatchObject({ status: 'queued' });

    await svc.app.jobs.drain();
    const done = await jobOf(queued.body.job, BRAND);
    expect(done.body).toEqual({
      ok: true,
      brand: BRAND,
      job: queued.body.job,
      status: 'done',
      event_uri: expect.any(String),
    });
    const list = await svc.request('GET', '/v1/stories', {
      key: w.keys.owner,
      query: { brand: BRAND },
    });
    expect(list.body.stories).toEqual([
      expect.objectContaining({
        event_uri: done.body.event_uri,
        title: 'Northwind in contract dispute',
      }),
    ]);
    const story = await svc.request('GET', '/v1/story', {
      key: w.keys.owner,
      query: { brand: BRAND, event_uri: done.body.event_uri },
    });
    expect(story.body.story.advisory.locked).toBe(true);

    const again = await fromUrl(url, BRAND);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ok: true, status: 'exists', event_uri: done.body.event_uri });
    const ledger = await svc.app.db
      .selectFrom('billing_ledger as l')
      .innerJoin('stories as s', 's.id', 'l.story_id')
      .select('l.id')
      .where('s.event_uri', '=', done.body.event_uri)
      .execute();
    expect(ledger).toEqual([]);
  });

  it('a page with no date is undated: stored with the day it was read, and shown as such', async () => {
    const BRAND = 'undated.northwind.example';
    await northwindAs(BRAND);
    const queued = await fromUrl(`${base}/undated/northwind`, BRAND);
    await svc.app.jobs.drain();
    const { event_uri } = (await jobOf(queued.body.job, BRAND)).body;
    const row = await svc.app.db
      .selectFrom('articles as a')
      .innerJoin('stories as s', 's.id', 'a.story_id')
      .select(['a.published_at', 'a.undated'])
      .where('s.event_uri', '=', event_uri)
      .executeTakeFirstOrThrow();
    const today = svc.app.clock.now().toISOString().slice(0, 10);
    expect(row).toEqual({ published_at: today, undated: 1 });

    // Sources are shown with an unlocked advisory.
    const unlock = (uri: string) =>
      svc.app.db
        .updateTable('stories')
        .set({ unlocked_at: new Date().toISOString() })
        .where('event_uri', '=', uri)
        .execute();
    await unlock(event_uri);
    const c = new PortalClient(svc.url);
    await c.signIn('owner@northwind.example', 'correct horse battery');
    const story = await c.get(`/app/stories/${BRAND}/${event_uri}`);
    expect(story.html).toContain(`undated (read ${today})`);
    // A dated page is shown with its own date.
    const dated = await fromUrl(`${base}/business/northwind-dispute`, BRAND);
    await svc.app.jobs.drain();
    const other = (await jobOf(dated.body.job, BRAND)).body.event_uri;
    await unlock(other);
    const shown = await c.get(`/app/stories/${BRAND}/${other}`);
    expect(shown.html).toContain('2026-11-18');
    expect(shown.html).not.toContain('undated (read');
  });

  it('a page that declares itself opinion is stored so, and judged as a column on every reading', async () => {
    const BRAND = 'column.northwind.example';
    await northwindAs(BRAND);
    const queued = await fromUrl(`${base}/business/northwind-view`, BRAND);
    await svc.app.jobs.drain();
    const { event_uri } = (await jobOf(queued.body.job, BRAND)).body;
    const story = await svc.app.db
      .selectFrom('stories as s')
      .innerJoin('articles as a', 'a.story_id', 's.id')
      .innerJoin('advisories as v', 'v.story_id', 's.id')
      .select(['s.id', 'a.opinion', 'v.id as advisory_id'])
      .where('s.event_uri', '=', event_uri)
      .executeTakeFirstOrThrow();
    expect(story.opinion).toBe(1);
    const first = await svc.app.db
      .selectFrom('phases')
      .select('title')
      .where('advisory_id', '=', story.advisory_id)
      .where('number', '=', 1)
      .executeTakeFirstOrThrow();
    expect(first.title).toMatch(/^Read the argument/);
    // Read back for a rescore or a proposal, the stored sources still say so.
    const sources = await storySources(svc.app.db, story.id);
    expect(sources[0]).toMatchObject({ opinion: true });
    expect(situationOf(sources[0]!, { host: BRAND, name: 'Northwind' }).opinion).toBe(true);
  });

  it('another URL of the same article (its canonical) joins the story it is already in', async () => {
    const queued = await fromUrl(`${base}/amp/northwind-dispute`);
    await svc.app.jobs.drain();
    const first = await fromUrl(`${base}/business/northwind-dispute`);
    expect((await jobOf(queued.body.job)).body).toMatchObject({
      status: 'done',
      event_uri: first.body.event_uri,
    });
  });

  it('a page in a legacy charset is read in it, and the charset is kept with the article', async () => {
    const queued = await fromUrl(`${base}/legacy/northwind`);
    await svc.app.jobs.drain();
    const done = await jobOf(queued.body.job);
    expect(done.body).toMatchObject({ status: 'done' });
    const row = await svc.app.db
      .selectFrom('articles')
      .select(['title', 'text', 'charset', 'language', 'sentiment'])
      .where('url', '=', `${base}/legacy/northwind`)
      .executeTakeFirstOrThrow();
    expect(row.title).toBe('Northwind’s “green” claims questioned – €2m at stake');
    expect(row.charset).toBe('windows-1252');
    expect(row.language).toBe('en');
    // A dispute, told of Northwind: the coverage speaks of it negatively.
    expect(row.sentiment).toBeLessThan(0);
    expect(row.text).not.toContain('\uFFFD');
  });

  it('a page that does not mention the brand fails with a reason', async () => {
    const queued = await fromUrl(`${base}/business/other-company`);
    await svc.app.jobs.drain();
    expect((await jobOf(queued.body.job)).body).toMatchObject({
      status: 'failed',
      reason: 'brand not mentioned',
    });
    // Named only in the page's share links is not a mention either.
    const shared = await fromUrl(`${base}/business/share-links`);
    await svc.app.jobs.drain();
    expect((await jobOf(shared.body.job)).body).toMatchObject({
      status: 'failed',
      reason: 'brand not mentioned',
    });
  });

  it('pages that cannot be used fail with their reason; private addresses are refused at once', async () => {
    const missing = await fromUrl(`${base}/nowhere`);
    const json = await fromUrl(`${base}/feed.json`);
    await svc.app.jobs.drain();
    expect((await jobOf(missing.body.job)).body).toMatchObject({
      status: 'failed',
      reason: 'the page answered HTTP 404',
    });
    expect((await jobOf(json.body.job)).body).toMatchObject({
      status: 'failed',
      reason: 'not an HTML page (application/json)',
    });
    const local = await fromUrl('http://169.254.169.254/latest/meta-data/');
    expect(local.status).toBe(400);
    expect(local.body.error).toMatch(/^url: /);
    // IPv6 spellings of loopback and of the metadata address are the same refusal.
    for (const url of [
      'http://[::127.0.0.1]/',
      'http://[::a9fe:a9fe]/latest/meta-data/',
      'http://[64:ff9b:1::a9fe:a9fe]/',
      'http://[2002:a9fe:a9fe::1]/',
    ]) {
      const r = await fromUrl(url);
      expect(r.status, url).toBe(400);
      expect(r.body.error, url).toMatch(/^url: /);
    }
    const ftp = await fromUrl('ftp://example.com/a');
    expect(ftp.status).toBe(400);
  });

  it('in the portal: the job has a page that follows it, then shows why it failed or opens its story', async () => {
    const c = new PortalClient(svc.url);
    expect((await c.signIn('owner@northwind.example', 'correct horse battery')).status).toBe(303);
    await c.get('/app/stories');
    const BRAND = 'live.northwind.example';
    await northwindAs(BRAND);
    const add = (url: string) => c.post('/app/stories/from-url', { brand: BRAND, url });

    // A page that fails: the job's page says it is waiting, its status says the same.
    const failing = await add(`${base}/business/other-company`);
    expect(failing.status).toBe(303);
    const jobPage = failing.location!;
    expect(jobPage).toMatch(/^\/app\/stories\/from-url\/live\.northwind\.example\/job_/);
    const waiting = await c.get(jobPage);
    expect(waiting.status).toBe(200);
    expect(waiting.html).toContain('Waiting for its turn');
    expect(waiting.html).toContain(`data-live="${jobPage}/status"`);
    expect(waiting.html).toContain('<script src="/app/live.js" defer></script>');
    expect(waiting.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; script-src 'self'; connect-src 'self'",
    );
    const status = async () => {
      const r = await c.get(`${jobPage}/status`);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      return JSON.parse(r.html);
    };
    expect(await status()).toEqual({ status: 'queued', state: 'Waiting for its turn…' });
    // The stories list shows it while it waits, leading to its page.
    const requestRow = async () => {
      const list = (await c.get('/app/stories')).html;
      const at = list.indexOf(`<a href="${jobPage}" class="wrap">`);
      return at < 0 ? null : list.slice(at, list.indexOf('</li>', at));
    };
    expect(await requestRow()).toContain('<span class="badge">waiting</span>');
    await svc.app.jobs.drain();
    // Once failed, the list says why (for a day).
    expect(await requestRow()).toContain(
      '<span class="badge sev-high">no story</span> <span class="small">brand not mentioned</span>',
    );
    const reason = 'No story was made from this article: brand not mentioned.';
    expect(await status()).toEqual({ status: 'failed', reason });
    const failed = await c.get(jobPage);
    expect(failed.html).toContain(reason);
    expect(failed.html).toContain('role="alert"');
    expect(failed.html).not.toContain('data-live');

    // A page that works: once done, the job's page and its status lead to the story.
    const working = await add(`${base}/business/northwind-dispute`);
    await svc.app.jobs.drain();
    const opened = await c.get(working.location!);
    expect(opened.status).toBe(303);
    // A request that made its story leaves the list: the story is there instead.
    expect((await c.get('/app/stories')).html).not.toContain(
      `<a href="${working.location}" class="wrap">`,
    );
    expect(opened.location).toMatch(/^\/app\/stories\/live\.northwind\.example\//);
    const followed = JSON.parse((await c.get(`${working.location}/status`)).html);
    expect(followed).toEqual({ status: 'done', go: opened.location });
    expect((await c.get(opened.location!)).html).toContain('Northwind in contract dispute');

    // The same article again opens its story at once; a job asked for under another
    // brand is not found, as over REST.
    expect((await add(`${base}/business/northwind-dispute`)).location).toBe(opened.location);
    const job = jobPage.split('/').pop();
    const foreign = await c.get(`/app/stories/from-url/acme.com/${job}/status`);
    expect(foreign.status).toBe(404);
    expect(JSON.parse(foreign.html)).toEqual({ error: 'not found' });
    const script = await fetch(`${svc.url}/app/live.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain("querySelectorAll('[data-live]')");
  });

  it("another brand's job is not found", async () => {
    const queued = await fromUrl(`${base}/business/northwind-dispute-2`);
    const foreign = await svc.request('GET', '/v1/stories/from-url', {
      key: w.keys.owner,
      query: { brand: 'acme.com', job: queued.body.job },
    });
    expect(foreign.status).toBe(404);
  });
});
