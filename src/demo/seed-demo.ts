import type { AppContext } from '../context.js';
import { addUser, createAccount } from '../domain/accounts.js';
import { createKey } from '../domain/api-key-admin.js';
import { subscribe } from '../domain/billing-admin.js';
import { addBrand, requireBrandByHost } from '../domain/brands.js';
import { grantDelegation } from '../domain/delegations.js';
import { importStory } from '../domain/import-story.js';
import { refreshStoryDocument } from '../domain/story-documents.js';
import { conflict } from '../errors.js';
import { DEMO_ARTICLES } from './demo-articles.js';

export const DEMO_PASSWORD = 'demo-password';
/** The demo's brands, by the account that monitors them. */
const DEMO_BRANDS = [
  { account: 'northwind', host: 'northwind.example', name: 'Northwind', verified: true },
  { account: 'acme', host: 'acme.com', name: 'Acme', verified: true },
  { account: 'globex', host: 'globex.com', name: 'Globex', verified: true },
  { account: 'initech', host: 'initech.example', name: 'Initech', verified: false },
] as const;

export interface DemoData {
  accounts: Record<string, string>;
  keys: Record<string, { id: string; key: string }>;
  users: Record<string, string>;
}

/**
 * A complete demo: an agency (Northwind) that manages the client brand acme.com under an
 * active delegation, a partner (Globex) with its own brand, and a starter account without
 * API access; keys of every role; stories of every severity, one unlocked.
 */
export async function seedDemo(app: AppContext): Promise<DemoData> {
  // Check every demo host before writing anything, so a conflict leaves no partial demo.
  const taken = await app.db
    .selectFrom('brands')
    .select('host')
    .where(
      'host',
      'in',
      DEMO_BRANDS.map((b) => b.host),
    )
    .execute();
  if (taken.length > 0) {
    throw conflict(`demo: demo data already present (${taken.map((b) => b.host).join(', ')})`);
  }

  const northwind = await createAccount(app, 'Northwind Communications', 'agency');
  const acme = await createAccount(app, 'Acme Corp', 'pro');
  const globex = await createAccount(app, 'Globex', 'partner');
  const initech = await createAccount(app, 'Initech', 'starter');

  const users: Record<string, string> = {};
  for (const [email, account, role] of [
    ['owner@northwind.example', northwind, 'owner'],
    ['member@northwind.example', northwind, 'member'],
    ['owner@acme.com', acme, 'owner'],
    ['owner@globex.com', globex, 'owner'],
    ['owner@initech.example', initech, 'owner'],
  ] as const) {
    await addUser(app, { accountId: account, email, password: DEMO_PASSWORD, role });
    users[email] = account;
  }

  const accounts = { northwind, acme, globex, initech };
  for (const b of DEMO_BRANDS) {
    await addBrand(app, {
      accountId: accounts[b.account],
      host: b.host,
      name: b.name,
      verified: b.verified,
      // The demo's brands are made up: the real world's "Acme" news is not theirs, so their
      // connectors start switched off (a team switches one on with `brs source on`) and
      // no newsroom is sought on acme.com.
      findCoverage: false,
    });
  }
  await grantDelegation(app, {
    partnerId: northwind,
    clientId: acme,
    host: 'acme.com',
    actor: 'operator',
  });
  await subscribe(app, northwind, 'operator');

  const now = app.clock.now().getTime();
  let unlocked = false;
  for (const { host, daysAgo, article } of DEMO_ARTICLES) {
    const brand = await requireBrandByHost(app, host);
    const detectedAt = new Date(now - daysAgo * 86_400_000 - 3_600_000).toISOString();
    const { event_uri } = await importStory(app, { brand, article, actor: 'operator', detectedAt });
    if (!unlocked && host === 'acme.com') {
      // One story shows the full advisory out of the box.
      const { id } = await app.db
        .updateTable('stories')
        .set({ unlocked_at: detectedAt })
        .where('event_uri', '=', event_uri)
        .returning('id')
        .executeTakeFirstOrThrow();
      await refreshStoryDocument(app.db, id, detectedAt);
      unlocked = true;
    }
  }

  const keys = {
    northwind_owner: await createKey(app, {
      accountId: northwind,
      role: 'owner',
      scope: null,
      name: 'Northwind owner (full scope)',
      actor: 'operator',
    }),
    northwind_member: await createKey(app, {
      accountId: northwind,
      role: 'member',
      scope: null,
      name: 'Northwind member',
      actor: 'operator',
    }),
    northwind_acme_only: await createKey(app, {
      accountId: northwind,
      role: 'admin',
      scope: ['acme.com'],
      name: 'Northwind admin, acme.com only',
      actor: 'operator',
    }),
    globex_owner: await createKey(app, {
      accountId: globex,
      role: 'owner',
      scope: null,
      name: 'Globex owner',
      actor: 'operator',
    }),
    initech_owner: await createKey(app, {
      accountId: initech,
      role: 'owner',
      scope: null,
      name: 'Initech (starter plan: no API access)',
      actor: 'operator',
    }),
  };
  return { accounts, keys, users };
}
