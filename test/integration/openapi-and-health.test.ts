import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restOperations } from '../../src/operations/index.js';
import { startService, type TestService } from '../support/harness.js';

let svc: TestService;

beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.close());

describe('service endpoints', () => {
  it('GET /healthz answers while the process is up', async () => {
    const r = await svc.request('GET', '/healthz');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true });
  });

  it('GET /readyz checks the database', async () => {
    const r = await svc.request('GET', '/readyz');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true });
  });

  it('serves an OpenAPI 3.1 document generated from the operation registry', async () => {
    const r = await svc.request('GET', '/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    expect(r.body.info.version).toBe('1.0.0');
    const ids = Object.values(
      r.body.paths as Record<string, Record<string, { operationId: string }>>,
    )
      .flatMap((methods) => Object.values(methods).map((m) => m.operationId))
      .sort();
    expect(ids).toEqual(restOperations.map((op) => op.id).sort());
    const list = r.body.paths['/v1/stories'].get;
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual([
      'brand',
      'limit',
      'cursor',
    ]);
    expect(list.parameters[0]).toMatchObject({ in: 'query', required: true });
    const post = r.body.paths['/v1/brand-note'].post;
    expect(post.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
    expect(post.parameters[0].name).toBe('Idempotency-Key');
    expect(post.responses['429'].description).toContain('rate limit');
  });

  it('serves the API docs page', async () => {
    const r = await svc.request('GET', '/docs/');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/html');
  });
});
