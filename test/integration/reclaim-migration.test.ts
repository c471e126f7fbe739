import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type Db, migrate, migrator, openDatabase } from '../../src/db/database.js';
import type { DelegationStatus } from '../../src/db/schema.js';
import { freshDatabase } from '../support/databases.js';

/**
 * Migration 0007 over data written before it: accounts already handed back keep their
 * trial, existing shares learn who created them, and a partner's share that outlived
 * its delegation stops now.
 */
let db: Db;
let drop: () => Promise<void>;
const T = '2030-01-01T00:00:00.000Z';
const FUTURE = '2099-01-01T00:00:00.000Z';

beforeAll(async () => {
  const fresh = await freshDatabase();
  drop = fresh.drop;
  const config = loadConfig({ DATABASE_URL: fresh.url, LOG_LEVEL: 'fatal', CONNECTORS: '' });
  db = openDatabase(config.database, config.databaseTimeouts);
  const { error } = await migrator(db).migrateTo('0006-monitoring');
  if (error) throw error;
});
afterAll(async () => {
  await db.destroy();
  await drop();
});

const account = (
  id: string,
  plan: 'pro' | 'agency',
  state: 'active' | 'handed_back' = 'active',
  trial: string | null = null,
) =>
  db
    .insertInto('accounts')
    .values({ id, name: id, plan, state, trial_ends_at: trial, created_at: T })
    .execute();
const brand = (id: string, accountId: string) =>
  db
    .insertInto('brands')
    .values({
      id,
      account_id: accountId,
      host: `${id}.example`,
      name: id,
      verified: 1,
      verified_at: T,
      aliases: '[]',
      created_at: T,
    })
    .execute();
const story = (id: string, brandId: string) =>
  db
    .insertInto('stories')
    .values({
      id,
      event_uri: `evt_${id}`,
      brand_id: brandId,
      title: id,
      severity: 'low',
      topics: '[]',
      spread: 'contained',
      status: 'new',
      assignee_user_id: null,
      detected_at: T,
      last_activity_at: T,
      unlocked_at: null,
      created_at: T,
    })
    .execute();
const delegation = (
  id: string,
  partner: string,
  client: string,
  brandId: string,
  status: DelegationStatus,
) =>
  db
    .insertInto('delegations')
    .values({
      id,
      partner_account_id: partner,
      client_account_id: client,
      brand_id: brandId,
      status,
      granted_at: T,
      ended_at: status === 'active' ? null : T,
      created_at: T,
    })
    .execute();
/** A share and the audit row its creation wrote. */
async function share(id: string, storyId: string, brandOwner: string, actor: string) {
  await db
    .insertInto('shares')
    .values({
      id,
      story_id: storyId,
      token: `${id}`.padEnd(24, 'x'),
      access: 'public',
      mode: 'briefing',
      listed: 0,
      created_at: T,
      updated_at: T,
    })
    .execute();
  await db
    .insertInto('audit_log')
    .values({
      id: `aud_${id}`,
      account_id: brandOwner,
      brand_id: null,
      story_id: storyId,
      actor,
      action: 'share.created',
      details: '{}',
      created_at: T,
    })
    .execute();
}

describe('migration 0007', () => {
  it('keeps running trials, records share creators, stops shares that outlived their delegation', async () => {
    await account('partner', 'agency');
    await account('other_partner', 'agency');
    await account('handed', 'pro', 'handed_back', FUTURE);
    await account('managed', 'pro');
    await db
      .insertInto('users')
      .values({
        id: 'usr_partner',
        email: 'p@partner.example',
        name: null,
        password_hash: null,
        email_verified_at: T,
        created_at: T,
      })
      .execute();
    await db
      .insertInto('memberships')
      .values({
        account_id: 'other_partner',
        user_id: 'usr_partner',
        role: 'owner',
        status: 'active',
        created_at: T,
      })
      .execute();
    await db
      .insertInto('api_keys')
      .values({
        id: 'key_partner',
        account_id: 'partner',
        name: 'k',
        lookup: 'lookup_partner',
        secret_hash: 'x',
        role: 'owner',
        scope: null,
        created_at: T,
        last_used_at: null,
        revoked_at: null,
      })
      .execute();
    await brand('gone', 'handed');
    await brand('kept', 'managed');
    await story('s_gone', 'gone');
    await story('s_kept', 'kept');
    await story('s_own', 'kept');
    await delegation('d_gone', 'partner', 'handed', 'gone', 'dropped');
    await delegation('d_kept', 'other_partner', 'managed', 'kept', 'active');
    await share('sh_gone', 's_gone', 'handed', 'key:key_partner');
    await share('sh_kept', 's_kept', 'managed', 'user:usr_partner');
    await share('sh_own', 's_own', 'managed', 'operator');

    await migrate(db);

    const accounts = await db
      .selectFrom('accounts')
      .select(['id', 'trial_plan'])
      .where('id', 'in', ['handed', 'managed'])
      .orderBy('id')
      .execute();
    expect(accounts).toEqual([
      { id: 'handed', trial_plan: 'partner' },
      { id: 'managed', trial_plan: null },
    ]);
    const shares = await db
      .selectFrom('shares')
      .select(['id', 'set_by_account_id', 'suspended_at'])
      .orderBy('id')
      .execute();
    expect(shares).toEqual([
      { id: 'sh_gone', set_by_account_id: 'partner', suspended_at: expect.any(String) },
      { id: 'sh_kept', set_by_account_id: 'other_partner', suspended_at: null },
      { id: 'sh_own', set_by_account_id: 'managed', suspended_at: null },
    ]);
  });
});
