import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { migrate } from '../../src/db/database.js';
import { sweepExpiredOAuth, UNUSED_CLIENT_TTL_MS } from '../../src/db/oauth-store.js';
import { brsServe } from '../support/cli.js';
import { freshDatabase } from '../support/databases.js';
import { freePort, startService, type TestService } from '../support/harness.js';
import {
  authorizeUrl,
  listToolsWith,
  OAuthBrowser,
  pkcePair,
  redeemCode,
  signIn,
} from '../support/oauth-browser.js';
import { PortalClient } from '../support/portal-client.js';
import { seedWorld } from '../support/world.js';

/**
 * How OAuth clients come to exist: by a Client ID Metadata Document (an HTTPS URL the
 * client names itself by), or by dynamic registration, capped per address, of which the
 * clients never used expire.
 */
const OWNER = { email: 'owner@northwind.example', password: 'correct horse battery' };
const REDIRECT = 'http://127.0.0.1:1/callback';
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const authorize = (base: string, clientId: string, challenge: string) =>
  authorizeUrl(base, { clientId, redirectUri: REDIRECT, challenge });

describe('Client ID Metadata Documents', () => {
  const dir = mkdtempSync(join(tmpdir(), 'brs-cimd-'));
  let docs: Server;
  let docBase: string;
  let base: string;
  const hits: string[] = [];
  const documents = new Map<string, object>();

  beforeAll(async () => {
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    // A public client's metadata, on HTTPS as the specification requires: a certificate
    // for 127.0.0.1 that the service (a child process) is told to trust.
    execFileSync('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ]);
    docs = createServer(
      { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
      (req, res) => {
        hits.push(req.url!);
        // A document server that never answers: the sign-in must not wait on it.
        if (req.url === '/clients/stalled.json') return;
        const doc = documents.get(req.url!);
        if (!doc) return res.writeHead(404).end();
        res
          .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=3600' })
          .end(JSON.stringify(doc));
      },
    ).listen(0, '127.0.0.1');
    await once(docs, 'listening');
    cleanups.push(() => docs.close());
    docBase = `https://127.0.0.1:${(docs.address() as AddressInfo).port}`;

    const db = await freshDatabase();
    cleanups.push(db.drop);
    const app = await createContext(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'fatal' }));
    await migrate(app.db);
    await seedWorld(app);
    await app.close();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const svc = await brsServe({
      DATABASE_URL: db.url,
      PORT: String(port),
      BASE_URL: base,
      NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem'),
      FETCH_ALLOW_HOSTS: new URL(docBase).host,
    });
    cleanups.push(svc.stop);
  });

  const document = (path: string, fields: object = {}) => {
    const clientId = `${docBase}${path}`;
    documents.set(path, {
      client_id: clientId,
      client_name: 'Doc Client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...fields,
    });
    return clientId;
  };

  it('are advertised, and a client named by its document signs in and calls /mcp', async () => {
    const metadata = (await (
      await fetch(`${base}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata.client_id_metadata_document_supported).toBe(true);

    const clientId = document('/clients/doc.json');
    for (let round = 0; round < 2; round++) {
      const { verifier, challenge } = pkcePair();
      const browser = new OAuthBrowser(OWNER);
      const back = await browser.authorize(authorize(base, clientId, challenge), REDIRECT);
      // The consent page names the client by its document's host first (the one thing
      // its owner proved), then by the name the document gives itself.
      const host = new URL(docBase).host;
      expect(browser.pages.some((p) => p.includes(`Allow ${host} (“Doc Client”)`))).toBe(true);
      expect(browser.pages.some((p) => p.includes(`published at <strong>${host}</strong>`))).toBe(
        true,
      );
      const token = await redeemCode(base, {
        code: back.searchParams.get('code')!,
        redirectUri: REDIRECT,
        clientId,
        verifier,
      });
      expect(token.status).toBe(200);
      const { access_token } = (await token.json()) as { access_token: string };
      expect((await listToolsWith(base, access_token)).status).toBe(200);
    }
    // Fetched once, then kept for its max-age.
    expect(hits.filter((h) => h === '/clients/doc.json')).toHaveLength(1);
    // Such a client is not stored: Connected apps names it by its document's host.
    const portal = new PortalClient(base);
    await portal.signIn(OWNER.email, OWNER.password);
    const apps = await portal.get('/app/connected-apps');
    expect(apps.html).toContain(`<td>${new URL(docBase).host}</td>`);
  });

  it('gives up on a document server that does not answer within 2.5 s', async () => {
    const { challenge } = pkcePair();
    const started = performance.now();
    const res = await fetch(authorize(base, `${docBase}/clients/stalled.json`, challenge), {
      redirect: 'manual',
    });
    const took = performance.now() - started;
    expect(res.status).toBe(400);
    expect(hits).toContain('/clients/stalled.json');
    // 2.5 s and the time to answer; it took about 5 s when the deadline applied twice.
    expect(took).toBeGreaterThanOrEqual(2400);
    expect(took).toBeLessThan(4000);
  });

  it('refuses a document that names another client, and a private address never fetched', async () => {
    const liar = document('/clients/liar.json');
    documents.set('/clients/liar.json', {
      ...documents.get('/clients/liar.json'),
      client_id: `${docBase}/clients/someone-else.json`,
    });
    const { challenge } = pkcePair();
    const refused = await fetch(authorize(base, liar, challenge), { redirect: 'manual' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/client/i);

    // Nor do documents or registrations get signed assertions: the library would fetch
    // the client's keys from a URL the client names.
    const signed = document('/clients/signed.json', {
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: `${docBase}/clients/keys.json`,
    });
    const refusedSigned = await fetch(authorize(base, signed, challenge), { redirect: 'manual' });
    expect(refusedSigned.status).toBe(400);
    const registered = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: `${docBase}/clients/keys.json`,
      }),
    });
    expect(registered.status).toBe(400);
    expect(hits).not.toContain('/clients/keys.json');

    const before = hits.length;
    const internal = await fetch(authorize(base, 'https://10.1.2.3/client.json', challenge), {
      redirect: 'manual',
    });
    expect(internal.status).toBe(400);
    expect(hits.length).toBe(before);
  });
});

describe('dynamic registration', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startService({ OAUTH_REGISTRATIONS_PER_HOUR: '3' }, { runJobs: false });
    await seedWorld(svc.app);
    cleanups.push(() => svc.close());
  });

  const register = () =>
    fetch(`${svc.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Registering agent',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
    });

  const clientRow = (clientId: string) =>
    svc.app.db
      .selectFrom('oauth_records')
      .select(['id', 'expires_at'])
      .where('kind', '=', 'Client')
      .where('payload', 'like', `%${clientId}%`)
      .executeTakeFirst();

  it('is capped per address, and a client never used expires while one signed in with stays', async () => {
    // One registration by signIn (used), one never used, then the cap.
    const used = await signIn(svc.url, OWNER);
    const unused = (await (await register()).json()) as { client_id: string };
    expect((await register()).status).toBe(201);
    const capped = await register();
    expect(capped.status).toBe(429);
    expect(Number(capped.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await capped.json()) as { error: string }).error).toBe('too_many_requests');

    const fresh = await clientRow(unused.client_id);
    const ttl = Date.parse(fresh!.expires_at!) - Date.now();
    expect(ttl).toBeGreaterThan(UNUSED_CLIENT_TTL_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(UNUSED_CLIENT_TTL_MS);
    expect((await clientRow(used.client_id))?.expires_at).toBeNull();

    // Its time passes: the sweep removes it, the used one stays.
    await svc.app.db
      .updateTable('oauth_records')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', fresh!.id)
      .where('kind', '=', 'Client')
      .execute();
    await sweepExpiredOAuth(svc.app.db);
    expect(await clientRow(unused.client_id)).toBeUndefined();
    expect(await clientRow(used.client_id)).toBeDefined();
    const { challenge } = pkcePair();
    const gone = await fetch(authorize(svc.url, unused.client_id, challenge), {
      redirect: 'manual',
    });
    expect(gone.status).toBe(400);
  });
});
