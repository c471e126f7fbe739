import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getStory } from '../../src/operations/stories/get-story.js';
import { listStories } from '../../src/operations/stories/list-stories.js';
import { startService, type TestService } from '../support/harness.js';
import { seedWorld, type World } from '../support/world.js';

let svc: TestService;
let w: World;

beforeAll(async () => {
  svc = await startService();
  w = await seedWorld(svc.app);
});
afterAll(() => svc.close());

describe('GET /v1/stories (list_stories)', () => {
  it('lists a brand of the account, newest first, in the specified shape', async () => {
    const older = await w.story('northwind.example', 2, '2026-01-01T00:00:00.000Z');
    const r = await svc.request('GET', '/v1/stories', {
      key: w.keys.owner,
      query: { brand: 'northwind.example' },
    });
    expect(r.status).toBe(200);
    expect(listStories.output.parse(r.body)).toBeTruthy();
    expect(r.body.brand).toBe('northwind.example');
    expect(r.body.stories.map((s: { event_uri: string }) => s.event_uri)).toEqual([
      w.stories.northwind,
      older,
    ]);
    expect(Object.keys(r.body.stories[0]).sort()).toEqual([
      'detected_at',
      'event_uri',
      'severity',
      'title',
    ]);
    expect(r.body.next_cursor).toBeNull();
  });

  it('pages with a cursor without skipping or repeating a row', async () => {
    const created: string[] = [];
    for (let i = 0; i < 7; i++) {
      // Two stories share each timestamp, so the id tie-break matters.
      created.push(
        await w.story('globex.com', 10 + i, `2026-02-0${1 + Math.floor(i / 2)}T00:00:00.000Z`),
      );
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const r = await svc.request('GET', '/v1/stories', {
        key: w.keys.other,
        query: { brand: 'globex.com', limit: 3, cursor },
      });
      expect(r.status).toBe(200);
      expect(r.body.stories.length).toBeLessThanOrEqual(3);
      seen.push(...r.body.stories.map((s: { event_uri: string }) => s.event_uri));
      cursor = r.body.next_cursor ?? undefined;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.sort()).toEqual([...created, w.stories.globex].sort());
    const detected = await svc.request('GET', '/v1/stories', {
      key: w.keys.other,
      query: { brand: 'globex.com', limit: 200 },
    });
    const times = detected.body.stories.map((s: { detected_at: string }) => s.detected_at);
    expect(times).toEqual([...times].sort().reverse());
  });

  it('refuses a bad limit or cursor with a 400 naming it', async () => {
    for (const [query, error] of [
      [{ limit: 0 }, 'limit: must be 1 to 200'],
      [{ limit: 201 }, 'limit: must be 1 to 200'],
      [{ limit: 'ten' }, 'limit: must be a number'],
      [{ cursor: 'bm9wZQ' }, 'cursor: is not a cursor this API returned'],
    ] as const) {
      const r = await svc.request('GET', '/v1/stories', {
        key: w.keys.owner,
        query: { brand: 'northwind.example', ...query },
      });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: error });
    }
  });

  it('accepts Authorization: Bearer and brand hosts in any case', async () => {
    const r = await svc.request('GET', '/v1/stories', {
      query: { brand: 'NorthWind.Example' },
      headers: { authorization: `Bearer ${w.keys.owner}` },
    });
    expect(r.status).toBe(200);
    expect(r.body.brand).toBe('northwind.example');
  });

  it('lists a delegated client brand', async () => {
    const r = await svc.request('GET', '/v1/stories', {
      key: w.keys.owner,
      query: { brand: 'acme.com' },
    });
    expect(r.status).toBe(200);
    expect(r.body.stories[0].event_uri).toBe(w.stories.acme);
  });
});

describe('GET /v1/story (get_story)', () => {
  it('shows only the teaser of a locked advisory', async () => {
    const r = await svc.request('GET', '/v1/story', {
      key: w.keys.owner,
      query: { brand: 'northwind.example', event_uri: w.stories.northwind },
    });
    expect(r.status).toBe(200);
    expect(getStory.output.parse(r.body)).toBeTruthy();
    const a = r.body.story.advisory;
    expect(a.locked).toBe(true);
    expect(a.sources).toEqual([]);
    expect(a.summary_basis).toEqual([]);
    expect(a.phases).toBeUndefined();
    expect(a.spread).toBeUndefined();
    expect(a.schema).toBe('advisory.v1');
    // Which generator wrote it (issue 42): the built-in one, no model being configured.
    expect(a.generator).toBe('builtin');
    expect(a.executive_summary.length).toBeGreaterThan(0);
    for (const item of a.executive_summary) expect(item.cites).toEqual([]);
    expect(r.body.story.status).toBe('new');
    expect(r.body.story.assignee).toBeNull();
  });

  it('shows the full advisory once unlocked, every citation resolving to a source', async () => {
    await svc.app.db
      .updateTable('stories')
      .set({ unlocked_at: new Date().toISOString() })
      .where('event_uri', '=', w.stories.acme)
      .execute();
    const r = await svc.request('GET', '/v1/story', {
      key: w.keys.owner,
      query: { brand: 'acme.com', event_uri: w.stories.acme },
    });
    expect(r.status).toBe(200);
    const a = r.body.story.advisory;
    expect(a.locked).toBe(false);
    expect(a.phases.length).toBeGreaterThanOrEqual(3);
    expect(a.phases.map((p: { phase: number }) => p.phase)).toEqual(
      a.phases.map((_: unknown, i: number) => i + 1),
    );
    expect(a.phases[0]).toMatchObject({
      status: 'open',
      assignee: null,
      done_by: null,
      done_at: null,
      comment: null,
    });
    const ids = new Set(a.sources.map((s: { id: string }) => s.id));
    expect(ids.size).toBeGreaterThan(0);
    for (const item of a.executive_summary)
      for (const c of item.cites) expect(ids.has(c)).toBe(true);
    for (const c of a.summary_basis) expect(ids.has(c)).toBe(true);
    expect(a.sources[0]).toEqual({
      id: 's1',
      url: 'https://news.example.org/acme/1',
      publisher: 'Example News',
      title: 'Acme story number 1',
      published_at: '2026-11-20',
      type: 'news',
    });
  });

  it('answers an unknown story, an unknown brand and a foreign brand with identical 404s', async () => {
    const unknownStory = await svc.request('GET', '/v1/story', {
      key: w.keys.owner,
      query: { brand: 'northwind.example', event_uri: 'evt_nope' },
    });
    const unknownBrand = await svc.request('GET', '/v1/story', {
      key: w.keys.owner,
      query: { brand: 'nobody.example', event_uri: w.stories.globex },
    });
    const foreignBrand = await svc.request('GET', '/v1/story', {
      key: w.keys.owner,
      query: { brand: 'globex.com', event_uri: w.stories.globex },
    });
    const foreignList = await svc.request('GET', '/v1/stories', {
      key: w.keys.owner,
      query: { brand: 'globex.com' },
    });
    const unknownList = await svc.request('GET', '/v1/stories', {
      key: w.keys.owner,
      query: { brand: 'nobody.example' },
    });
    for (const r of [unknownStory, unknownBrand, foreignBrand, foreignList, unknownList]) {
      expect(r.status).toBe(404);
      expect(r.text).toBe('{"error":"not found"}');
    }
    // A story of another brand is not reachable through a brand the caller may read.
    const crossed = await svc.request('GET', '/v1/story', {
      key: w.keys.owner,
      query: { brand: 'northwind.example', event_uri: w.stories.globex },
    });
    expect(crossed.text).toBe('{"error":"not found"}');
  });

  it('requires brand and event_uri', async () => {
    const r = await svc.request('GET', '/v1/story', {
      key: w.keys.owner,
      query: { brand: 'northwind.example' },
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'event_uri: is required' });
    const r2 = await svc.request('GET', '/v1/story', {
      key: w.keys.owner,
      query: { brand: 'not a host!', event_uri: 'x' },
    });
    expect(r2.body).toEqual({ error: 'brand: must be a brand host such as acme.com' });
  });
});
