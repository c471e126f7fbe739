import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { brsStart } from '../support/cli.js';
import { freshDatabase } from '../support/databases.js';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('the quickstart: brs start (npm start)', () => {
  it('seeds an empty database, prints a working key and curl, and prints them again on restart', async () => {
    const db = await freshDatabase();
    const cwd = mkdtempSync(join(tmpdir(), 'brs-start-'));
    cleanups.push(db.drop, async () => rmSync(cwd, { recursive: true, force: true }));
    const env = { DATABASE_URL: db.url };

    const first = await brsStart(env, cwd);
    cleanups.push(first.stop);
    const text = first.banner.join('\n');
    const url = /listening on (\S+)/.exec(text)?.[1];
    const key = /Demo API key:\s+(brs_\S+)/.exec(text)?.[1];
    const curl = first.banner.find((l) => l.trim().startsWith('curl '));
    expect(url).toMatch(/^http:\/\//);
    expect(key).toBeTruthy();
    expect(curl).toContain(key);
    const target = /'(http[^']+)'/.exec(curl!)?.[1];
    const res = await fetch(target!, { headers: { 'x-api-key': key! } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { stories: unknown[] };
    expect(body.stories.length).toBeGreaterThan(0);
    await first.stop();

    // The second start seeds nothing and still shows the demo key (kept beside the data).
    const second = await brsStart(env, cwd);
    cleanups.push(second.stop);
    expect(second.banner.join('\n')).toContain(key);
    await second.stop();
    const files = db.url.startsWith('sqlite:') ? join(db.url.slice(7), '..') : join(cwd, 'data');
    const credentials = JSON.parse(readFileSync(join(files, 'demo-credentials.json'), 'utf8'));
    expect(credentials.keys.northwind_owner.key).toBe(key);
  });
});
