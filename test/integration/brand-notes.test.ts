import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../support/harness.js';
import { seedWorld, type World } from '../support/world.js';

let svc: TestService;
let w: World;

beforeAll(async () => {
  svc = await startService();
  w = await seedWorld(svc.app);
});
afterAll(() => svc.close());

const note = (key: string, brand: string, event_uri: string, text?: unknown) =>
  svc.request('POST', '/v1/brand-note', { key, body: { brand, event_uri, text } });

const noteOf = (eventUri: string) =>
  svc.app.db
    .selectFrom('brand_notes')
    .innerJoin('stories', 'stories.id', 'brand_notes.story_id')
    .select(['brand_notes.text', 'brand_notes.author'])
    .where('stories.event_uri', '=', eventUri)
    .executeTakeFirst();

describe('POST /v1/brand-note', () => {
  it('publishes on a verified own brand, shows it on the story and writes an audit row', async () => {
    // A story of its own: other tests publish on the shared one.
    const event = await w.story('northwind.example', 77);
    const r = await note(w.keys.member, 'northwind.example', event, 'We are looking into this.');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      ok: true,
      brand: 'northwind.example',
      event_uri: event,
    });
    const story = await svc.request('GET', '/v1/story', {
      key: w.keys.owner,
      query: { brand: 'northwind.example', event_uri: event },
    });
    expect(story.body.story.brand_note.text).toBe('We are looking into this.');
    const audit = await svc.app.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'brand_note.published')
      .where('story_id', '=', (eb) =>
        eb.selectFrom('stories').select('id').where('event_uri', '=', event),
      )
      .execute();
    expect(audit).toHaveLength(1);
  });

  it('replaces the note on a second publish', async () => {
    await note(w.keys.owner, 'northwind.example', w.stories.northwind, 'Updated statement.');
    expect((await noteOf(w.stories.northwind))?.text).toBe('Updated statement.');
  });

  it('publishes on a delegated client brand', async () => {
    const r = await note(
      w.keys.owner,
      'acme.com',
      w.stories.acme,
      'Statement by the agency on behalf of Acme.',
    );
    expect(r.status).toBe(200);
    expect(await noteOf(w.stories.acme)).toBeTruthy();
  });

  it('refuses an unverified own brand with 403 and publishes nothing', async () => {
    const r = await note(w.keys.owner, 'unverified.example', w.stories.unverified, 'Hello');
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: "outside this key's brand scope" });
    expect(await noteOf(w.stories.unverified)).toBeUndefined();
  });

  it('never deletes: empty, blank, missing or too long text is refused and the note stays', async () => {
    const before = await noteOf(w.stories.northwind);
    for (const text of ['', '   \n ', undefined, null, 'x'.repeat(601), 42]) {
      const r = await note(w.keys.owner, 'northwind.example', w.stories.northwind, text);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(/^text: /);
    }
    expect(await noteOf(w.stories.northwind)).toEqual(before);
  });

  it('counts characters, not UTF-16 units: 600 emoji pass, 601 do not', async () => {
    expect(
      (await note(w.keys.owner, 'northwind.example', w.stories.northwind, '🙂'.repeat(600))).status,
    ).toBe(200);
    const r = await note(w.keys.owner, 'northwind.example', w.stories.northwind, '🙂'.repeat(601));
    expect(r.body).toEqual({ error: 'text: must be 1 to 600 characters' });
  });

  it('answers 404 for an unknown story and a foreign brand alike', async () => {
    const a = await note(w.keys.owner, 'northwind.example', 'evt_unknown', 'x');
    const b = await note(w.keys.owner, 'globex.com', w.stories.globex, 'x');
    expect(a.text).toBe('{"error":"not found"}');
    expect(b.text).toBe(a.text);
    expect(await noteOf(w.stories.globex)).toBeUndefined();
  });
});

describe('DELETE /v1/brand-note', () => {
  it('deletes the note, then reports there was none', async () => {
    await note(w.keys.owner, 'northwind.example', w.stories.northwind, 'To be removed');
    const q = { brand: 'northwind.example', event_uri: w.stories.northwind };
    const first = await svc.request('DELETE', '/v1/brand-note', { key: w.keys.owner, query: q });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      ok: true,
      brand: 'northwind.example',
      event_uri: w.stories.northwind,
      deleted: true,
    });
    expect(await noteOf(w.stories.northwind)).toBeUndefined();
    const second = await svc.request('DELETE', '/v1/brand-note', { key: w.keys.owner, query: q });
    expect(second.body.deleted).toBe(false);
    const audit = await svc.app.db
      .selectFrom('audit_log')
      .select('id')
      .where('action', '=', 'brand_note.deleted')
      .execute();
    expect(audit).toHaveLength(1);
  });

  it('applies the same gate as publishing', async () => {
    const r = await svc.request('DELETE', '/v1/brand-note', {
      key: w.keys.owner,
      query: { brand: 'unverified.example', event_uri: w.stories.unverified },
    });
    expect(r.status).toBe(403);
  });
});
