import { afterAll, beforeAll, expect, it } from 'vitest';
import { claimRefreshAnswer } from '../../src/db/oauth-store.js';
import { mcpResource } from '../../src/oauth/provider.js';
import {
  REFRESH_GRACE_MS,
  REFRESH_WAIT_MS,
  refreshCredential,
} from '../../src/oauth/refresh-grace.js';
import { startService, type TestService } from '../support/harness.js';
import { manualClock } from '../support/manual-clock.js';
import { listToolsWith, signIn } from '../support/oauth-browser.js';
import { seedWorld } from '../support/world.js';

/**
 * An MCP client with calls in flight when its token goes stale refreshes several times
 * at once: each must get the same new pair, and nobody is signed out; a replay after
 * the grace period still revokes the grant.
 */
let svc: TestService;
const clock = manualClock();
const OWNER = { email: 'owner@northwind.example', password: 'correct horse battery' };

beforeAll(async () => {
  svc = await startService({}, { runJobs: false, clock });
  await seedWorld(svc.app);
});
afterAll(() => svc.close());

const refresh = (token: { refresh_token: string; client_id: string }, resource?: string) =>
  fetch(`${svc.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: token.refresh_token,
      client_id: token.client_id,
      ...(resource && { resource }),
    }).toString(),
  });

const listTools = (accessToken: string) => listToolsWith(svc.url, accessToken);

interface Pair {
  access_token: string;
  refresh_token: string;
}

it('three parallel refreshes get one new pair; three parallel calls with it all succeed', async () => {
  const signedIn = await signIn(svc.url, OWNER);
  const answers = await Promise.all([refresh(signedIn), refresh(signedIn), refresh(signedIn)]);
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
  const pairs = (await Promise.all(answers.map((a) => a.json()))) as Pair[];
  expect(new Set(pairs.map((p) => p.access_token)).size).toBe(1);
  expect(new Set(pairs.map((p) => p.refresh_token)).size).toBe(1);
  expect(pairs[0]!.refresh_token).not.toBe(signedIn.refresh_token);
  expect(answers[1]!.headers.get('cache-control')).toBe('no-store');
  const calls = await Promise.all(pairs.map((p) => listTools(p.access_token)));
  expect(calls.map((c) => c.status)).toEqual([200, 200, 200]);
  // The new refresh token rotates as usual.
  const next = await refresh({ ...signedIn, refresh_token: pairs[0]!.refresh_token });
  expect(next.status).toBe(200);
  // No answer is stored in the clear: only sealed, under the old token's digest.
  const stored = await svc.app.db
    .selectFrom('oauth_records')
    .select('payload')
    .where('kind', '=', 'RefreshAnswer')
    .execute();
  expect(stored.length).toBeGreaterThan(0);
  for (const row of stored) expect(row.payload).not.toContain(pairs[0]!.access_token);
});

it('a repeat that names /mcp as its resource, as the SDKs send it, is the same refresh', async () => {
  const signedIn = await signIn(svc.url, OWNER);
  const first = await refresh(signedIn);
  expect(first.status).toBe(200);
  const pair = (await first.json()) as Pair;
  const repeat = await refresh(signedIn, mcpResource(svc.app));
  expect(repeat.status).toBe(200);
  expect(((await repeat.json()) as Pair).refresh_token).toBe(pair.refresh_token);
  // Nothing was revoked: the pair works and rotates.
  expect((await listTools(pair.access_token)).status).toBe(200);
  const next = await refresh(
    { ...signedIn, refresh_token: pair.refresh_token },
    mcpResource(svc.app),
  );
  expect(next.status).toBe(200);
  // Another resource is not the same request: the provider judges it (a replay of a used
  // token, which revokes the grant).
  const foreign = await refresh(signedIn, 'https://elsewhere.example/mcp');
  expect(foreign.status).toBe(400);
});

it('a replay after the grace period revokes the grant, as before', async () => {
  const signedIn = await signIn(svc.url, OWNER);
  const first = (await (await refresh(signedIn)).json()) as Pair;
  await clock.advance(REFRESH_GRACE_MS + 1000);
  const replay = await refresh(signedIn);
  expect(replay.status).toBe(400);
  expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
  // Everything issued under the grant is gone with it.
  expect((await listTools(first.access_token)).status).toBe(401);
  expect((await refresh({ ...signedIn, refresh_token: first.refresh_token })).status).toBe(400);
});

it('a refresh the provider refuses is refused to every repeat alike', async () => {
  const signedIn = await signIn(svc.url, OWNER);
  const wrong = { ...signedIn, client_id: 'someone-else' };
  const answers = await Promise.all([refresh(wrong), refresh(wrong)]);
  for (const a of answers) expect(a.status).toBeGreaterThanOrEqual(400);
  // The user is still signed in: the real client refreshes fine.
  expect((await refresh(signedIn)).status).toBe(200);
});

it('a refresh whose first request died is run by the next one, and nobody is signed out', async () => {
  const signedIn = await signIn(svc.url, OWNER);
  // A request claimed this refresh, then its process died before answering.
  const params = new URLSearchParams({
    grant_type: 'refresh_token',
    refresh_token: signedIn.refresh_token,
    client_id: signedIn.client_id,
  });
  const claimed = await claimRefreshAnswer(
    svc.app.db,
    refreshCredential(params, undefined, mcpResource(svc.app)),
    new Date(clock.now().getTime() + REFRESH_GRACE_MS),
  );
  expect(claimed).toBe(true);
  await clock.advance(REFRESH_WAIT_MS + 1000);
  const retried = await refresh(signedIn);
  expect(retried.status).toBe(200);
  const pair = (await retried.json()) as Pair;
  expect((await listTools(pair.access_token)).status).toBe(200);
  // The same request again within the grace period gets that answer.
  const again = (await (await refresh(signedIn)).json()) as Pair;
  expect(again.refresh_token).toBe(pair.refresh_token);
});

it('a token request too large is answered 413, not cut off', async () => {
  const res = await fetch(`${svc.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `grant_type=refresh_token&refresh_token=${'a'.repeat(100_000)}`,
  });
  expect(res.status).toBe(413);
  expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
});
