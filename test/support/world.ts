import type { AppContext } from '../../src/context.js';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { createKey, revokeKey } from '../../src/domain/api-key-admin.js';
import { addBrand, requireBrandByHost } from '../../src/domain/brands.js';
import { grantDelegation } from '../../src/domain/delegations.js';
import { importStory } from '../../src/domain/import-story.js';

export const article = (
  brandName: string,
  n: number,
  text = 'a product recall after injuries',
) => ({
  url: `https://news.example.org/${brandName.toLowerCase()}/${n}`,
  title: `${brandName} story number ${n}`,
  publisher: 'Example News',
  published_at: '2026-11-20',
  text: `${brandName} announced ${text}. The company said more details will follow soon after review.`,
});

/**
 * The accounts every suite plays with:
 * - agency (Northwind): own verified brand northwind.example, own unverified brand
 *   unverified.example, client brand acme.com delegated to it;
 * - client (Acme, pro plan): owns acme.com;
 * - other (Globex, partner plan): owns globex.com, a foreign brand to Northwind;
 * - starter (Initech): API access refused by plan.
 */
export async function seedWorld(app: AppContext) {
  const agency = await createAccount(app, 'Northwind', 'agency');
  const client = await createAccount(app, 'Acme Corp', 'pro');
  const other = await createAccount(app, 'Globex', 'partner');
  const starter = await createAccount(app, 'Initech', 'starter');
  await addUser(app, {
    accountId: agency,
    email: 'owner@northwind.example',
    password: 'correct horse battery',
    role: 'owner',
  });

  await addBrand(app, {
    accountId: agency,
    host: 'northwind.example',
    name: 'Northwind',
    verified: true,
  });
  await addBrand(app, {
    accountId: agency,
    host: 'unverified.example',
    name: 'Unverified',
    verified: false,
  });
  await addBrand(app, { accountId: client, host: 'acme.com', name: 'Acme', verified: true });
  await addBrand(app, { accountId: other, host: 'globex.com', name: 'Globex', verified: true });
  await addBrand(app, {
    accountId: starter,
    host: 'initech.example',
    name: 'Initech',
    verified: true,
  });
  await grantDelegation(app, {
    partnerId: agency,
    clientId: client,
    host: 'acme.com',
    actor: 'operator',
  });

  const key = (
    accountId: string,
    role: 'owner' | 'admin' | 'member',
    scope: string[] | null = null,
  ) => createKey(app, { accountId, role, scope, actor: 'operator' }).then((k) => k.key);
  const revoked = await createKey(app, {
    accountId: agency,
    role: 'owner',
    scope: null,
    actor: 'operator',
  });
  await revokeKey(app, revoked.id, 'operator');

  const keys = {
    owner: await key(agency, 'owner'),
    admin: await key(agency, 'admin'),
    member: await key(agency, 'member'),
    scopedNorthwind: await key(agency, 'admin', ['northwind.example']),
    scopedAcme: await key(agency, 'owner', ['acme.com']),
    other: await key(other, 'owner'),
    starter: await key(starter, 'owner'),
    revoked: revoked.key,
  };

  const story = async (host: string, n: number, detectedAt?: string) => {
    const brand = await requireBrandByHost(app, host);
    return (
      await importStory(app, {
        brand,
        article: article(brand.name, n),
        actor: 'operator',
        detectedAt,
      })
    ).event_uri;
  };
  const stories = {
    northwind: await story('northwind.example', 1),
    unverified: await story('unverified.example', 1),
    acme: await story('acme.com', 1),
    globex: await story('globex.com', 1),
  };
  let clients = 0;
  /** A client brand freshly delegated to the agency: its host. */
  const clientBrand = async () => {
    const host = `client-${++clients}.example`;
    const id = await createAccount(app, host, 'pro');
    await addBrand(app, { accountId: id, host, name: undefined, verified: true });
    await grantDelegation(app, { partnerId: agency, clientId: id, host, actor: 'test' });
    return host;
  };
  let customers = 0;
  /**
   * An account of a test's own (plan agency unless said), with one verified brand and an
   * owner key: for a test that changes what is account- or brand-wide (included units, a
   * subscription), so no other test's order matters.
   */
  const customer = async (plan: 'pro' | 'partner' | 'agency' = 'agency') => {
    const n = ++customers;
    const host = `customer-${n}.example`;
    const name = `Customer${n}`;
    const accountId = await createAccount(app, name, plan);
    await addBrand(app, { accountId, host, name, verified: true });
    const { key: ownerKey } = await createKey(app, {
      accountId,
      role: 'owner',
      scope: null,
      actor: 'operator',
    });
    return { accountId, host, key: ownerKey, story: (k: number) => story(host, k) };
  };
  return {
    accounts: { agency, client, other, starter },
    keys,
    stories,
    story,
    clientBrand,
    customer,
  };
}

export type World = Awaited<ReturnType<typeof seedWorld>>;
