import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { buildServer } from '../../src/http/server.js';

describe('database outage', () => {
  it('answers 503 service unavailable on the API, OAuth, /mcp and /readyz, never a 500', async () => {
    // Nothing listens on port 1: every query fails to connect.
    const app = await createContext(
      loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', LOG_LEVEL: 'fatal' }),
    );
    const server = await buildServer(app);
    const url = await server.listen({ port: 0, host: '127.0.0.1' });
    const key = `brs_aaaaaaaaaaaa_${'A'.repeat(43)}`;
    const api = await fetch(`${url}/v1/brands`, { headers: { 'x-api-key': key } });
    expect(api.status).toBe(503);
    expect(await api.json()).toEqual({ error: 'service unavailable' });
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    // The OAuth server and /mcp with a token need the database too.
    const discovery = await fetch(`${url}/.well-known/oauth-authorization-server`);
    expect(discovery.status).toBe(503);
    const mcp = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer some-oauth-access-token-value',
        'content-type': 'application/json',
      },
      body: '{}',
    });
    expect(mcp.status).toBe(503);
    await server.close();
    await app.close();
  });
});
