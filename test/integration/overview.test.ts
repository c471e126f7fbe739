import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { type Db, migrate, migrator } from '../../src/db/database.js';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { createKey } from '../../src/domain/api-key-admin.js';
import { addBrand, brandTermsOf, requireBrandByHost } from '../../src/domain/brands.js';
import { backfillCoverageJob } from '../../src/domain/coverage.js';
import { grantDelegation } from '../../src/domain/delegations.js';
import { buildStoryRows, importStory } from '../../src/domain/import-story.js';
import { ingestArticle } from '../../src/domain/ingest-article.js';
import { storiesByStatus, topValues, volumeByDay } from '../../src/domain/overview.js';
import { jobDefinitions } from '../../src/jobs/handlers.js';
import { firstSource } from '../../src/pipeline/builtin-advisor.js';
import { freshDatabase } from '../support/databases.js';
import { startService, type TestService } from '../support/harness.js';
import { manualClock } from '../support/manual-clock.js';
import { PortalClient } from '../support/portal-client.js';

/**
 * The overview's counts (migration 0019) on the database under test: kept as articles
 * come in and stories change, filled from what was stored before, and shown on /app.
 */
let svc: TestService;
let key: string;
let owner: PortalClient;
let agency: PortalClient;
let acmeId: string;
const clock = manualClock('2026-11-20T12:00:00.000Z');
let n = 0;

const article = (title: string, text: string, publisher = 'Example News', sentiment?: number) => ({
  url: `https://news${++n}.example.org/story/${n}`,
  title,
  text,
  publisher,
  published_at: '2026-11-20',
  ...(sentiment !== undefined && { sentiment }),
});

const importAt = async (host: string, day: string, a: ReturnType<typeof article>) => {
  const brand = await requireBrandByHost(svc.app, host);
  const r = await importStory(svc.app, {
    brand,
    article: a,
    actor: 'operator',
    detectedAt: `${day}T09:00:00.000Z`,
  });
  return r.event_uri;
};

/** What the triggers keep, against a count of the stories themselves. */
async function expectStatusCountsTrue(db: Db, brandId: string) {
  const live = await db
    .selectFrom('stories')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('brand_id', '=', brandId)
    .groupBy('status')
    .execute();
  const expected = { new: 0, assigned: 0, in_progress: 0, closed: 0 };
  for (const r of live) expected[r.status] = Number(r.n);
  expect(await storiesByStatus(db, [brandId])).toEqual(expected);
}

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_PER_MINUTE: '2000' }, { runJobs: false, clock });
  const acme = await createAccount(svc.app, 'Acme', 'partner');
  const northwind = await createAccount(svc.app, 'Northwind', 'agency');
  await addUser(svc.app, {
    accountId: acme,
    email: 'owner@acme.example',
    password: 'correct horse battery',
    role: 'owner',
  });
  await addUser(svc.app, {
    accountId: northwind,
    email: 'owner@northwind.example',
    password: 'correct horse battery',
    role: 'owner',
  });
  acmeId = await addBrand(svc.app, {
    accountId: acme,
    host: 'acme.example',
    name: 'Acme',
    verified: true,
  });
  await addBrand(svc.app, {
    accountId: northwind,
    host: 'northwind.example',
    name: 'Northwind',
    verified: true,
  });
  await grantDelegation(svc.app, {
    partnerId: northwind,
    clientId: acme,
    host: 'acme.example',
    actor: 'operator',
  });
  key = (await createKey(svc.app, { accountId: acme, role: 'owner', scope: null, actor: 't' })).key;
  owner = new PortalClient(svc.url);
  await owner.signIn('owner@acme.example', 'correct horse battery');
  agency = new PortalClient(svc.url);
  await agency.signIn('owner@northwind.example', 'correct horse battery');
}, 60_000);
afterAll(() => svc.close());

describe('the overview', () => {
  it('counts each mention on its day, under its severity, publisher and topics, with its sentiment', async () => {
    const host = 'acme.example';
    await importAt(
      host,
      '2026-11-18',
      article(
        'Acme recalls kettles after injuries',
        'Acme recalls its kettles after burn injuries were reported to the regulator.',
        'Daily Planet',
        -0.5,
      ),
    );
    await importAt(
      host,
      '2026-11-18',
      article(
        'Acme wins a design award',
        'Acme won a national design award for its new kettle line this week.',
        'Trade Weekly',
        0.5,
      ),
    );
    await importAt(
      host,
      '2026-11-19',
      article(
        'Acme opens a store',
        'Acme opened a new store downtown on Thursday.',
        'Daily Planet',
      ),
    );
    const days = await volumeByDay(svc.app.db, [acmeId], '2026-11-17', '2026-11-20');
    expect(days.map((d) => d.day)).toEqual([
      '2026-11-17',
      '2026-11-18',
      '2026-11-19',
      '2026-11-20',
    ]);
    const total = (i: number) => Object.values(days[i]!.bySeverity).reduce((a, b) => a + b, 0);
    // The other tests store their stories on the 20th.
    expect([0, 1, 2].map(total)).toEqual([0, 2, 1]);
    expect(days[1]!.sentiment).toBe(0);
    const publishers = await topValues(
      svc.app.db,
      [acmeId],
      'publisher',
      '2026-11-17',
      '2026-11-19',
    );
    expect(publishers).toEqual([
      { value: 'Daily Planet', mentions: 2 },
      { value: 'Trade Weekly', mentions: 1 },
    ]);
    const topics = await topValues(svc.app.db, [acmeId], 'topic', '2026-11-18', '2026-11-18');
    expect(topics.map((t) => t.value)).toContain('product-safety');
  });

  it('counts an article that joins a story on the day it joins, under the severity it gives', async () => {
    const brand = await requireBrandByHost(svc.app, 'acme.example');
    const text =
      'Acme Corporation is recalling 40,000 toasters sold since March after reports of fires in kitchens, the company said on Monday.';
    const first = await ingestArticle(
      svc.app,
      brand,
      article('Acme recalls 40,000 toasters after kitchen fires', text, 'Wire One'),
      'monitor',
    );
    await clock.advance(3_600_000);
    const second = await ingestArticle(
      svc.app,
      brand,
      article('Acme toaster recall: 40,000 units after fires', text, 'Wire Two'),
      'monitor',
    );
    expect(first.status).toBe('created');
    expect(second).toMatchObject({ status: 'joined', event_uri: first.event_uri });
    const today = clock.now().toISOString().slice(0, 10);
    const publishers = await topValues(svc.app.db, [acmeId], 'publisher', today, today);
    expect(publishers).toEqual(
      expect.arrayContaining([
        { value: 'Wire One', mentions: 1 },
        { value: 'Wire Two', mentions: 1 },
      ]),
    );
  });

  it('keeps stories by status true through assignment, closing, reopening and deletion', async () => {
    const host = 'acme.example';
    const uris = [];
    for (let i = 0; i < 3; i++) {
      uris.push(
        await importAt(host, '2026-11-20', article(`Acme note ${i}`, `Acme published note ${i}.`)),
      );
    }
    await expectStatusCountsTrue(svc.app.db, acmeId);
    const assign = await svc.request('POST', '/v1/story/assign', {
      key,
      body: { brand: host, event_uri: uris[0], assignee: 'owner@acme.example' },
    });
    expect(assign.status, assign.text).toBe(200);
    await expectStatusCountsTrue(svc.app.db, acmeId);
    const page = `/app/stories/${host}/${uris[1]}`;
    await owner.get(page);
    const closed = await owner.post(`${page}/close`, { reason: 'handled' });
    expect(closed.status, closed.html).toBe(303);
    await expectStatusCountsTrue(svc.app.db, acmeId);
    await owner.get(page);
    expect((await owner.post(`${page}/reopen`)).status).toBe(303);
    await expectStatusCountsTrue(svc.app.db, acmeId);
    const unassign = await svc.request('DELETE', '/v1/story/assign', {
      key,
      query: { brand: host, event_uri: uris[0] },
    });
    expect(unassign.status, unassign.text).toBe(200);
    await expectStatusCountsTrue(svc.app.db, acmeId);
  });

  it('shows the page: stories by status, charts with their numbers, my overdue phase, the newest serious stories', async () => {
    const host = 'acme.example';
    const uri = await importAt(
      host,
      '2026-11-16',
      article(
        'Acme data breach exposes customer accounts',
        'Attackers stole customer data from Acme in a data breach; regulators are investigating the hack.',
      ),
    );
    const story = await svc.request('GET', '/v1/story', {
      key,
      query: { brand: host, event_uri: uri },
    });
    expect(['high', 'critical']).toContain(story.body.story.severity);
    const unlock = await svc.request('POST', '/v1/advisory', {
      key,
      body: { brand: host, event_uri: uri },
    });
    expect(unlock.status, unlock.text).toBe(200);
    const assign = await svc.request('POST', '/v1/story/phase-assign', {
      key,
      body: { brand: host, event_uri: uri, phase: 1, assignee: 'owner@acme.example' },
    });
    expect(assign.status, assign.text).toBe(200);
    const storyPage = `/app/stories/${host}/${uri}`;
    await owner.get(storyPage);
    expect(
      (await owner.post(`${storyPage}/phase-due`, { phase: '1', due: '2026-11-19' })).status,
    ).toBe(303);

    const res = await owner.get('/app?days=7');
    expect(res.status).toBe(200);
    const html = res.html;
    expect(html).toContain('<h1>Overview</h1>');
    expect(html).toContain('aria-current="page">Overview</a>');
    expect(html).toMatch(/<dt>Open<\/dt><dd><a href="[^"]+">\d+<\/a><\/dd>/);
    expect(html).toContain('<figcaption>Mentions per day, by severity</figcaption>');
    expect(html).toMatch(/<title>2026-11-16: 1 mention, 1 (high|critical)<\/title>/);
    expect(html).toContain('<th scope="row">2026-11-14</th>');
    expect(html).toContain('Sentiment of the coverage');
    expect(html).toContain('1 overdue');
    expect(html).toContain('overdue since 2026-11-19');
    expect(html).toContain('Acme data breach exposes customer accounts');
    expect(html).toMatch(
      /<h2 id="pub-h">Top publishers<\/h2><ol class="ranks"><li><span class="rank-label">[^<]+<\/span> <span class="rank-n">\d+<\/span>/,
    );
    // One brand: no portfolio table.
    expect(html).not.toContain('id="portfolio-h"');

    const month = await owner.get('/app?days=90&brand=acme.example');
    expect(month.status).toBe(200);
    expect(month.html).toContain('<th scope="row">2026-08-23</th>');
    expect((await owner.get('/app?days=12')).status).toBe(400);
    const foreign = await owner.get('/app?brand=northwind.example');
    const unknown = await owner.get('/app?brand=nobody.example');
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
  });

  it("is an agency's portfolio across its client brands", async () => {
    const res = await agency.get('/app?days=30');
    expect(res.status).toBe(200);
    expect(res.html).toContain('id="portfolio-h"');
    expect(res.html).toMatch(/<a href="\/app\?brand=acme\.example&amp;days=30">Acme<\/a>/);
    expect(res.html).toMatch(
      /<a href="\/app\?brand=northwind\.example&amp;days=30">Northwind<\/a>/,
    );
  });
});

describe('migration 0019', () => {
  it('counts the articles and stories stored before it', async () => {
    const fresh = await freshDatabase();
    const config = loadConfig({ DATABASE_URL: fresh.url, LOG_LEVEL: 'fatal', CONNECTORS: '' });
    const app = await createContext(config);
    try {
      const { error } = await migrator(app.db).migrateTo('0017-phase-due');
      if (error) throw error;
      const accountId = await createAccount(app, 'Old', 'pro');
      const brandId = await addBrand(app, {
        accountId,
        host: 'old.example',
        name: 'Old',
        verified: true,
      });
      const brand = { id: brandId, account_id: accountId };
      const terms = brandTermsOf({ host: 'old.example', name: 'Old' });
      const generated = await app.advisor.generate(
        [
          firstSource({
            url: 'https://a.example/0',
            title: 'Old recalls kettles after injuries',
            text: 'Old recalls kettles after injuries.',
            publisher: 'Daily Planet',
            published_at: '2026-11-01',
          }),
        ],
        terms,
      );
      for (const [i, day] of ['2026-11-01', '2026-11-01', '2026-11-02'].entries()) {
        const rows = buildStoryRows({
          brand,
          article: {
            url: `https://a.example/${i}`,
            title: 'Old recalls kettles after injuries',
            text: 'Old recalls kettles after injuries.',
            publisher: i === 2 ? 'Trade Weekly' : 'Daily Planet',
            published_at: day,
            sentiment: i === 0 ? -0.4 : null,
          },
          actor: 'operator',
          detectedAt: `${day}T08:00:00.000Z`,
          now: `${day}T08:00:00.000Z`,
          generated,
        });
        if (i === 1) rows.stories.status = 'closed';
        await app.db.insertInto('stories').values(rows.stories).execute();
        await app.db.insertInto('articles').values(rows.articles).execute();
        await app.db.insertInto('advisories').values(rows.advisories).execute();
      }
      await migrate(app.db);
      // The mentions are counted by the job migration 0019 queued, once however often it runs.
      app.jobs.register(jobDefinitions);
      await app.jobs.drain();
      const again = await app.db
        .selectFrom('jobs')
        .select('payload')
        .where('name', '=', 'coverage.backfill')
        .executeTakeFirstOrThrow();
      await backfillCoverageJob(app, JSON.parse(again.payload));
      expect(await storiesByStatus(app.db, [brandId])).toEqual({
        new: 2,
        assigned: 0,
        in_progress: 0,
        closed: 1,
      });
      const days = await volumeByDay(app.db, [brandId], '2026-11-01', '2026-11-02');
      const total = (i: number) => Object.values(days[i]!.bySeverity).reduce((a, b) => a + b, 0);
      expect([total(0), total(1)]).toEqual([2, 1]);
      expect(days[0]!.sentiment).toBe(-0.4);
      expect(await topValues(app.db, [brandId], 'publisher', '2026-11-01', '2026-11-02')).toEqual([
        { value: 'Daily Planet', mentions: 2 },
        { value: 'Trade Weekly', mentions: 1 },
      ]);
      const topics = await topValues(app.db, [brandId], 'topic', '2026-11-01', '2026-11-02');
      expect(topics[0]).toEqual({ value: generated.advisory.topics[0], mentions: 3 });
      // Their search documents come from the job migration 0018 queued for them.
      const documents = async () =>
        Number(
          (await sql<{ n: number }>`select count(*) as n from story_documents`.execute(app.db))
            .rows[0]!.n,
        );
      expect(await documents()).toBe(3);
    } finally {
      await app.close();
      await fresh.drop();
    }
  });
});
