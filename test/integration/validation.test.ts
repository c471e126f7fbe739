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

describe('bad input gets a 400 naming the field', () => {
  const valid = () => ({
    brand: 'northwind.example',
    event_uri: w.stories.northwind,
    text: 'Statement',
  });
  const cases: [
    string,
    () => { rawBody?: string; body?: unknown; headers?: Record<string, string> },
    string,
  ][] = [
    ['malformed JSON', () => ({ rawBody: '{"brand": ' }), 'body: malformed JSON'],
    ['a JSON array', () => ({ body: [1, 2] }), 'body: must be an object'],
    ['a JSON string', () => ({ rawBody: '"text"' }), 'body: must be an object'],
    ['JSON null', () => ({ rawBody: 'null' }), 'body: must be an object'],
    ['an empty body', () => ({ rawBody: '' }), 'body: must be a JSON object'],
    [
      'a non-JSON content type',
      () => ({ rawBody: 'brand=x', headers: { 'content-type': 'text/plain' } }),
      'body: must be JSON (Content-Type: application/json)',
    ],
    [
      'an extra property',
      () => ({ body: { ...valid(), colour: 'red' } }),
      "body: unknown property 'colour'",
    ],
    ['a missing brand', () => ({ body: { ...valid(), brand: undefined } }), 'brand: is required'],
    [
      'a missing event_uri',
      () => ({ body: { ...valid(), event_uri: undefined } }),
      'event_uri: is required',
    ],
    ['a number for brand', () => ({ body: { ...valid(), brand: 7 } }), 'brand: must be a string'],
    ['an empty brand', () => ({ body: { ...valid(), brand: '' } }), 'brand: is required'],
    [
      'an object for text',
      () => ({ body: { ...valid(), text: { a: 1 } } }),
      'text: must be a string',
    ],
    [
      'an over-long event_uri',
      () => ({ body: { ...valid(), event_uri: 'e'.repeat(201) } }),
      'event_uri: must be at most 200 characters',
    ],
    [
      'an over-long text',
      () => ({ body: { ...valid(), text: 'a'.repeat(601) } }),
      'text: must be 1 to 600 characters',
    ],
    ['a prototype-pollution key', () => ({ rawBody: '{"__proto__": {"x": 1}}' }), ''],
  ];
  it.each(cases)('%s', async (_name, make, error) => {
    const r = await svc.request('POST', '/v1/brand-note', { key: w.keys.owner, ...make() });
    expect(r.status).toBe(400);
    expect(typeof r.body.error).toBe('string');
    expect(Object.keys(r.body)).toEqual(['error']);
    if (error) expect(r.body.error).toBe(error);
  });

  it('refuses NUL characters anywhere, which PostgreSQL could not store', async () => {
    const story = await svc.request('GET', '/v1/story', {
      key: w.keys.owner,
      query: { brand: 'northwind.example', event_uri: 'evt\u0000x' },
    });
    expect(story.status).toBe(400);
    expect(story.body).toEqual({ error: 'event_uri: must not contain NUL characters' });
    const note = await svc.request('POST', '/v1/brand-note', {
      key: w.keys.owner,
      headers: { 'idempotency-key': 'nul-1' },
      body: { ...valid(), text: 'a\u0000b' },
    });
    expect(note.status).toBe(400);
    expect(note.body).toEqual({ error: 'text: must not contain NUL characters' });
    const cursor = Buffer.from('2026-01-01T00:00:00.000Z|a\u0000').toString('base64url');
    const page = await svc.request('GET', '/v1/stories', {
      key: w.keys.owner,
      query: { brand: 'northwind.example', cursor },
    });
    expect(page.status).toBe(400);
    expect(page.body).toEqual({ error: 'cursor: is not a cursor this API returned' });
  });

  it('refuses a deeply nested body with a 400, with or without Idempotency-Key', async () => {
    const deep = `{"brand":"northwind.example","event_uri":"x","text":"t","x":${'['.repeat(20000)}${']'.repeat(20000)}}`;
    for (const headers of [{}, { 'idempotency-key': 'deep-1' }] as Record<string, string>[]) {
      const r = await svc.request('POST', '/v1/brand-note', {
        key: w.keys.owner,
        rawBody: deep,
        headers,
      });
      expect(r.status).toBe(400);
      expect(typeof r.body.error).toBe('string');
    }
  });

  it('refuses a forged cursor whose date part is not a timestamp of ours', async () => {
    for (const raw of ['2026-01-01\u0000|sto_abc', 'hello 1|sto_abc', '2026-01-01|sto_abc']) {
      const r = await svc.request('GET', '/v1/stories', {
        key: w.keys.owner,
        query: { brand: 'northwind.example', cursor: Buffer.from(raw).toString('base64url') },
      });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: 'cursor: is not a cursor this API returned' });
    }
  });

  it('answers a bad body from an unknown caller with 401, not 400', async () => {
    const r = await svc.request('POST', '/v1/brand-note', { rawBody: '{oops' });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: 'unknown or revoked API key' });
  });

  it('refuses a repeated query parameter', async () => {
    const r = await svc.request('GET', `/v1/stories?brand=a.com&brand=b.com`, {
      key: w.keys.owner,
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'brand: must be a string' });
  });

  it('answers an unknown path with a 404 error body', async () => {
    const r = await svc.request('GET', '/v1/nothing-here', { key: w.keys.owner });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: 'not found' });
  });

  it('answers an oversized body with 413 and an error body', async () => {
    const r = await svc.request('POST', '/v1/brand-note', {
      key: w.keys.owner,
      body: { ...valid(), text: 'a'.repeat(1_100_000) },
    });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ error: 'body: too large' });
  });
});
