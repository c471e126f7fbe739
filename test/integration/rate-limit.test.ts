import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../support/harness.js';
import { seedWorld, type World } from '../support/world.js';

let svc: TestService;
let w: World;

beforeAll(async () => {
  svc = await startService({ AUTH_FAILURES_PER_MINUTE: '10' });
  w = await seedWorld(svc.app);
});
afterAll(() => svc.close());

const brands = (key: string) => svc.request('GET', '/v1/brands', { key });

describe('rate limit: 120 requests per key per 60-second window', () => {
  it('answers the 121st request with 429 and Retry-After, and leaves other keys alone', async () => {
    let last: Awaited<ReturnType<typeof brands>> | undefined;
    for (let i = 1; i <= 120; i++) {
      last = await brands(w.keys.member);
      expect(last.status).toBe(200);
    }
    expect(last!.headers.get('ratelimit-limit')).toBe('120');
    expect(last!.headers.get('ratelimit-remaining')).toBe('0');
    const over = await brands(w.keys.member);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ error: 'rate limit exceeded' });
    const retry = Number(over.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(over.headers.get('ratelimit-remaining')).toBe('0');

    const other = await brands(w.keys.admin);
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-remaining')).toBe('119');
  });

  it('puts the rate-limit headers on error answers too', async () => {
    const r = await svc.request('GET', '/v1/story', {
      key: w.keys.owner,
      query: { brand: 'globex.com', event_uri: 'x' },
    });
    expect(r.status).toBe(404);
    expect(r.headers.get('ratelimit-limit')).toBe('120');
    expect(Number(r.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
  });

  it('authenticates before reading the body: bad bodies count and carry the headers', async () => {
    const bad = await svc.request('POST', '/v1/brand-note', {
      key: w.keys.scopedAcme,
      rawBody: '{oops',
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('ratelimit-limit')).toBe('120');
    const next = await svc.request('GET', '/v1/brands', { key: w.keys.scopedAcme });
    expect(Number(next.headers.get('ratelimit-remaining'))).toBe(
      Number(bad.headers.get('ratelimit-remaining')) - 1,
    );
  });

  it('limits failed authentications per client address, so keys cannot be guessed at speed', async () => {
    for (let i = 0; i < 10; i++)
      expect((await brands(`brs_guessguessgu_${'x'.repeat(43)}`)).status).toBe(401);
    const blocked = await brands(`brs_guessguessgu_${'y'.repeat(43)}`);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
