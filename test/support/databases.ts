import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { migrate } from '../../src/db/database.js';
import { randomId } from '../../src/ids.js';

/** Where the test PostgreSQL server is; any database on it works for creating others. */
export const POSTGRES_ADMIN_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export const testDialect = () => (process.env.TEST_DB === 'postgres' ? 'postgres' : 'sqlite');

/** A brand-new, empty database for one suite, and how to throw it away. */
export async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (testDialect() === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'brs-test-'));
    return {
      url: `sqlite:${join(dir, 'stories.db')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `brs_test_${randomId(10)}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * A fresh database with the schema in place, as `brs migrate` leaves it: the operator
 * commands other than migrate, serve and start refuse an unmigrated one.
 */
export async function migratedDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const fresh = await freshDatabase();
  const app = await createContext(loadConfig({ DATABASE_URL: fresh.url }));
  try {
    await migrate(app.db);
  } finally {
    await app.close();
  }
  return fresh;
}
