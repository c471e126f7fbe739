import { execFileSync, execSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { brsProcess, brsServe, brsStart } from '../support/cli.js';
import { freshDatabase } from '../support/databases.js';

/**
 * A rolling upgrade: instances of the previous release serve a database while this
 * release's `brs migrate` brings it up to date, and go on serving on the new schema
 * (migrations are additive: test/unit/migrations-additive.test.ts). The previous
 * release is built from the repository's history: the last commit before migration 0014.
 */
const PREVIOUS_RELEASE = '1d3dc083300737da88ddf237a6a9b355ef6b4b59';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let dir: string;
let previousBin: string;
let database: { url: string; drop: () => Promise<void> };
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'brs-previous-'));
  execSync(
    `git archive ${PREVIOUS_RELEASE} bin src package.json tsconfig.json tsconfig.build.json | tar -x -C ${dir}`,
    { cwd: ROOT },
  );
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  execFileSync(process.execPath, [
    join(ROOT, 'node_modules/typescript/bin/tsc'),
    '-p',
    join(dir, 'tsconfig.build.json'),
  ]);
  previousBin = join(dir, 'bin/brs.js');
  database = await freshDatabase();
}, 180_000);
afterAll(async () => {
  for (const stop of stops) await stop();
  await database?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('keeps the previous release serving while this release migrates the database', {
  timeout: 90_000,
}, async () => {
  const env = { DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '100000' };
  // Two instances of the previous release: one migrates and seeds the demo, one more.
  const first = await brsStart(env, dir, { bin: previousBin });
  stops.push(first.stop);
  const url = first.banner[0]!.replace('Stories is listening on ', '');
  const key = first.banner.find((l) => l.startsWith('Demo API key:'))!.split(/\s+/)[3]!;
  const second = await brsServe(env, { bin: previousBin });
  stops.push(second.stop);
  const previous = [url, second.url];

  const call = (base: string, method: string, path: string, body?: object) =>
    fetch(`${base}${path}`, {
      method,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      ...(body && { body: JSON.stringify(body) }),
    })
      .then(async (res) => {
        await res.arrayBuffer();
        return res.status;
      })
      .catch(() => 0);
  const list = await fetch(`${url}/v1/stories?brand=acme.com`, { headers: { 'x-api-key': key } });
  const story: string = ((await list.json()) as any).stories[0].event_uri;
  expect(await call(url, 'POST', '/v1/advisory', { brand: 'acme.com', event_uri: story })).toBe(
    200,
  );

  // Reads and writes on both previous instances, before, during and after the migration.
  const statuses = new Map<string, number>();
  let running = true;
  const load = async (base: string) => {
    while (running) {
      for (const status of [
        await call(base, 'GET', '/v1/stories?brand=acme.com'),
        await call(base, 'GET', `/v1/story?brand=acme.com&event_uri=${story}`),
        await call(base, 'POST', '/v1/shares', { brand: 'acme.com', event_uri: story }),
      ]) {
        const k = String(status);
        statuses.set(k, (statuses.get(k) ?? 0) + 1);
      }
    }
  };
  const loads = previous.map(load);
  await new Promise((r) => setTimeout(r, 500));
  const migrated = await brsProcess(env, 'migrate');
  expect(migrated.code, migrated.stderr).toBe(0);
  // This release serves beside them.
  const current = await brsServe(env);
  stops.push(current.stop);
  const loadCurrent = load(current.url);
  await new Promise((r) => setTimeout(r, 1000));
  running = false;
  await Promise.all([...loads, loadCurrent]);

  expect(Object.fromEntries(statuses)).toEqual({ '200': expect.any(Number) });
  expect(statuses.get('200')).toBeGreaterThan(30);
});
