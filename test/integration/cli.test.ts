import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { brs, brsProcess, brsServe } from '../support/cli.js';
import { freshDatabase, migratedDatabase } from '../support/databases.js';

let env: Record<string, string>;
let drop: () => Promise<void>;
let server: Awaited<ReturnType<typeof brsServe>>;

/**
 * Each test stands on its own: this is the world they share, made by the commands an
 * operator runs (two accounts, their brands, a delegation, an owner key, a server), and
 * what a test adds or changes is its own (its own brands, accounts and keys).
 */
let account: string;
let client: string;
let key: { id: string; key: string };

beforeAll(async () => {
  const db = await migratedDatabase();
  env = { DATABASE_URL: db.url };
  drop = db.drop;
  const create = async (...args: string[]) => {
    const r = await brs(env, ...args);
    if (r.code !== 0) throw new Error(`brs ${args.join(' ')}: ${JSON.stringify(r.out)}`);
    return r.out;
  };
  account = (await create('account', 'create', '--name', 'Northwind', '--plan', 'agency')).account;
  client = (await create('account', 'create', '--name', 'Acme', '--plan', 'pro')).account;
  await create('brand', 'add', '--account', account, '--host', 'northwind.example', '--verified');
  await create('brand', 'add', '--account', client, '--host', 'acme.com', '--name', 'Acme');
  await create(
    'delegation',
    'grant',
    '--partner',
    account,
    '--client',
    client,
    '--brand',
    'acme.com',
  );
  key = await create('key', 'create', '--account', account, '--role', 'owner', '--scope', 'full');
  server = await brsServe(env);
});
afterAll(async () => {
  await server?.stop();
  await drop();
});

const api = (path: string, key: string) =>
  fetch(`${server.url}${path}`, { headers: { 'x-api-key': key } }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as any,
  }));

describe('brs, the operator command line', () => {
  it('only migrate migrates: other commands refuse a database whose schema is behind', async () => {
    const db = await freshDatabase();
    const fresh = { DATABASE_URL: db.url };
    expect(await brs(fresh, 'account', 'create', '--name', 'Early', '--plan', 'pro')).toMatchObject(
      {
        code: 1,
        out: {
          error: expect.stringMatching(
            /^the database schema is behind this version \(\d+ migrations to apply\): run `brs migrate` first$/,
          ),
        },
      },
    );
    // The command as an operator runs it, in a process of its own (a smoke test).
    expect(await brsProcess(fresh, 'migrate')).toMatchObject({ code: 0, out: { ok: true } });
    await db.drop();
  });

  it('account create', async () => {
    const r = await brs(env, 'account', 'create', '--name', 'Initech', '--plan', 'agency');
    expect(r.code).toBe(0);
    expect(r.out.account).toMatch(/^acc_/);
    expect(r.out.account).not.toBe(account);
  });

  it('refuses a bad plan with a clear JSON error and a non-zero exit', async () => {
    // The exit status of a real process (a smoke test).
    const r = await brsProcess(env, 'account', 'create', '--name', 'X', '--plan', 'gold');
    expect(r.code).toBe(1);
    expect(r.out).toEqual({ error: 'plan: must be starter, pro, partner or agency' });
  });

  it('user create', async () => {
    const r = await brs(
      env,
      'user',
      'create',
      '--account',
      account,
      '--email',
      'Ops@Northwind.example',
      '--password',
      'long enough pw',
      '--role',
      'owner',
    );
    expect(r.code).toBe(0);
    expect(r.out.user).toMatch(/^usr_/);
    const bad = await brs(
      env,
      'user',
      'create',
      '--account',
      account,
      '--email',
      'nope',
      '--password',
      'long enough pw',
      '--role',
      'owner',
    );
    expect(bad.out).toEqual({ error: 'email: must be an email address' });
  });

  it('brand delete: with its stories; an unknown host is not found', async () => {
    const team = (await brs(env, 'account', 'create', '--name', 'Gone', '--plan', 'pro')).out
      .account;
    await brs(env, 'brand', 'add', '--account', team, '--host', 'gone.example', '--name', 'Gone');
    const r = await brs(env, 'brand', 'delete', '--host', 'gone.example');
    expect(r).toMatchObject({
      code: 0,
      out: { ok: true, host: 'gone.example', stories: 0, partners: 0 },
    });
    expect((await brs(env, 'brand', 'delete', '--host', 'gone.example')).code).toBe(1);
  });

  it('user remove: takes a teammate out, never the last owner', async () => {
    const team = (await brs(env, 'account', 'create', '--name', 'Removals', '--plan', 'pro')).out
      .account;
    for (const [email, role] of [
      ['boss@removals.example', 'owner'],
      ['temp@removals.example', 'member'],
    ]) {
      await brs(
        env,
        'user',
        'create',
        '--account',
        team,
        '--email',
        email!,
        '--password',
        'long enough pw',
        '--role',
        role!,
      );
    }
    const gone = await brs(
      env,
      'user',
      'remove',
      '--account',
      team,
      '--email',
      'temp@removals.example',
    );
    expect(gone.code).toBe(0);
    expect(gone.out).toEqual({ ok: true, email: 'temp@removals.example', was: 'active' });
    const again = await brs(
      env,
      'user',
      'remove',
      '--account',
      team,
      '--email',
      'temp@removals.example',
    );
    expect(again.out).toEqual({ error: 'not found' });
    const last = await brs(
      env,
      'user',
      'remove',
      '--account',
      team,
      '--email',
      'boss@removals.example',
    );
    expect(last.code).toBe(1);
    expect(last.out).toEqual({ error: 'email: the account needs an owner' });
  });

  it('brand add', async () => {
    expect(
      (
        await brs(
          env,
          'brand',
          'add',
          '--account',
          account,
          '--host',
          'Hooli.example',
          '--verified',
        )
      ).out,
    ).toEqual({ brand: 'hooli.example' });
    expect(
      (
        await brs(
          env,
          'brand',
          'add',
          '--account',
          client,
          '--host',
          'pied.example',
          '--name',
          'Pied',
        )
      ).out,
    ).toEqual({ brand: 'pied.example' });
    const dup = await brs(env, 'brand', 'add', '--account', client, '--host', 'acme.com');
    expect(dup.code).toBe(1);
    expect(dup.out).toEqual({
      error:
        'host: this brand is already monitored; if the domain is yours, claim it by verifying it',
    });
  });

  it('brand add refuses public suffixes, single labels and IP addresses, by name', async () => {
    const refused = {
      com: "host: com is a public suffix, not a brand's domain",
      'co.uk': "host: co.uk is a public suffix, not a brand's domain",
      'github.io': "host: github.io is a public suffix, not a brand's domain",
      intranet: "host: intranet is a single-label name, not a brand's domain",
      '10.0.0.1': "host: 10.0.0.1 is an IP address, not a brand's domain",
    };
    for (const [host, error] of Object.entries(refused)) {
      const r = await brs(env, 'brand', 'add', '--account', client, '--host', host, '--verified');
      expect(r.code, host).toBe(1);
      expect(r.out, host).toEqual({ error });
    }
    // A name registered under a private suffix is somebody's own.
    expect(
      (await brs(env, 'brand', 'add', '--account', client, '--host', 'acme.github.io')).out,
    ).toEqual({ brand: 'acme.github.io' });
  });

  it('brand aliases: shown, set, refused when bad, cleared', async () => {
    await brs(env, 'brand', 'add', '--account', client, '--host', 'aliases.example');
    const show = () => brs(env, 'brand', 'aliases', '--host', 'aliases.example');
    expect((await show()).out).toEqual({ brand: 'aliases.example', aliases: [] });
    const set = await brs(
      env,
      'brand',
      'aliases',
      '--host',
      'aliases.example',
      '--set',
      ' Acme Corp ,ACME Rockets,Acme Corp',
    );
    expect(set.out).toEqual({ brand: 'aliases.example', aliases: ['Acme Corp', 'ACME Rockets'] });
    expect((await show()).out.aliases).toEqual(['Acme Corp', 'ACME Rockets']);
    const bad = await brs(env, 'brand', 'aliases', '--host', 'aliases.example', '--set', 'A');
    expect(bad).toMatchObject({
      code: 1,
      out: { error: 'aliases: "A" must be 2 to 100 characters' },
    });
    expect(
      (await brs(env, 'brand', 'aliases', '--host', 'aliases.example', '--set', '')).out.aliases,
    ).toEqual([]);
    expect((await brs(env, 'brand', 'aliases', '--host', 'nope.example')).out).toEqual({
      error: 'brand nope.example: not found',
    });
  });

  it('brand match: shown with its defaults, changed option by option, refused when bad', async () => {
    await brs(env, 'brand', 'add', '--account', client, '--host', 'match.example');
    const match = (...args: string[]) =>
      brs(env, 'brand', 'match', '--host', 'match.example', ...args);
    expect((await match()).out).toEqual({
      brand: 'match.example',
      match: { strict: 'auto', exactCase: false, require: [], exclude: [] },
    });
    const set = await match('--strict', 'on', '--require', 'Road Runner, Wile E. Coyote');
    expect(set.out.match).toEqual({
      strict: 'on',
      exactCase: false,
      require: ['Road Runner', 'Wile E. Coyote'],
      exclude: [],
    });
    // Options left out keep their values.
    expect((await match('--exclude', 'Acme of perfection')).out.match).toMatchObject({
      strict: 'on',
      require: ['Road Runner', 'Wile E. Coyote'],
      exclude: ['Acme of perfection'],
    });
    expect(await match('--strict', 'sometimes')).toMatchObject({
      code: 1,
      out: { error: expect.stringMatching(/^match\.strict: /) },
    });
    expect(await match('--exact-case', 'yes')).toMatchObject({
      code: 1,
      out: { error: 'exact-case: must be on or off' },
    });
    expect((await match('--require', '', '--strict', 'auto')).out.match).toMatchObject({
      strict: 'auto',
      require: [],
    });
  });

  it('source add, list and remove; a non-public feed is refused', async () => {
    await brs(env, 'brand', 'add', '--account', client, '--host', 'sources.example');
    const add = await brs(
      env,
      'source',
      'add',
      '--brand',
      'sources.example',
      '--url',
      'https://news.example.org/feed.xml',
    );
    expect(add.out).toEqual({
      source: { id: expect.stringMatching(/^fed_/), url: 'https://news.example.org/feed.xml' },
    });
    const again = await brs(
      env,
      'source',
      'add',
      '--brand',
      'sources.example',
      '--url',
      'https://news.example.org/feed.xml',
    );
    expect(again.out).toEqual({ error: 'url: this feed is already monitored for the brand' });
    const local = await brs(
      env,
      'source',
      'add',
      '--brand',
      'sources.example',
      '--url',
      'http://127.0.0.1/feed',
    );
    expect(local.code).toBe(1);
    expect(local.out.error).toMatch(/^url: /);
    const list = await brs(env, 'source', 'list', '--brand', 'sources.example');
    expect(list.out.sources).toEqual([
      expect.objectContaining({
        id: add.out.source.id,
        url: 'https://news.example.org/feed.xml',
        last_status: null,
      }),
    ]);
    expect(
      (await brs(env, 'source', 'remove', '--brand', 'sources.example', '--id', add.out.source.id))
        .out,
    ).toEqual({ ok: true });
    expect((await brs(env, 'source', 'list', '--brand', 'sources.example')).out.sources).toEqual(
      [],
    );
    expect(
      (await brs(env, 'source', 'remove', '--brand', 'sources.example', '--id', add.out.source.id))
        .out,
    ).toEqual({ error: `source ${add.out.source.id}: not found` });
  });

  it('delegation grant', async () => {
    const other = (await brs(env, 'account', 'create', '--name', 'Globex', '--plan', 'pro')).out;
    await brs(env, 'brand', 'add', '--account', other.account, '--host', 'globex.example');
    const r = await brs(
      env,
      'delegation',
      'grant',
      '--partner',
      account,
      '--client',
      other.account,
      '--brand',
      'globex.example',
    );
    expect(r.out).toEqual({ status: 'active' });
  });

  it('key create, shown once, working over REST', async () => {
    const r = await brs(
      env,
      'key',
      'create',
      '--account',
      account,
      '--role',
      'owner',
      '--scope',
      'full',
      '--name',
      'CI',
    );
    expect(r.code).toBe(0);
    expect(r.out.id).toMatch(/^key_/);
    expect(r.out.key).toMatch(/^brs_[a-z2-9]{12}_[A-Za-z0-9_-]{43}$/);
    const brands = await api('/v1/brands', r.out.key);
    expect(brands.status).toBe(200);
    expect(brands.body.brands.map((b: { brand: string }) => b.brand)).toEqual(
      expect.arrayContaining(['acme.com', 'northwind.example']),
    );
  });

  it('key create with a brand scope', async () => {
    const r = await brs(
      env,
      'key',
      'create',
      '--account',
      account,
      '--role',
      'member',
      '--scope',
      'acme.com',
    );
    expect((await api('/v1/brands', r.out.key)).body.brands).toHaveLength(1);
    const bad = await brs(
      env,
      'key',
      'create',
      '--account',
      account,
      '--role',
      'member',
      '--scope',
      'globex.com',
    );
    expect(bad.out).toEqual({ error: 'scope: not a brand of this account: globex.com' });
  });

  it('story import lands a complete, locked story', async () => {
    const file = join(tmpdir(), `article-${process.pid}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        url: 'https://news.example.org/northwind-strike',
        title: 'Northwind staff announce a strike over pay',
        publisher: 'Example News',
        published_at: '2026-11-20',
        text: 'Workers at Northwind announced a strike on Monday after pay talks failed. The union said the walkout would last a week. Northwind said it regrets the decision.',
      }),
    );
    const r = await brs(env, 'story', 'import', '--brand', 'northwind.example', '--file', file);
    expect(r.code).toBe(0);
    expect(r.out.event_uri).toMatch(/^evt_/);
    const story = await api(
      `/v1/story?brand=northwind.example&event_uri=${r.out.event_uri}`,
      key.key,
    );
    expect(story.status).toBe(200);
    const s = story.body.story;
    expect(s.title).toBe('Northwind staff announce a strike over pay');
    expect(['medium', 'high', 'critical']).toContain(s.severity);
    expect(s.topics).toContain('labor');
    expect(s.advisory.locked).toBe(true);
    expect(s.advisory.executive_summary.length).toBeGreaterThan(0);
    // The plan and the citations sit behind the paywall: check them in the database itself.
    const app = await createContext(loadConfig({ DATABASE_URL: env.DATABASE_URL! }));
    const stored = await app.db
      .selectFrom('stories as st')
      .innerJoin('advisories as a', 'a.story_id', 'st.id')
      .select(['st.id', 'a.id as advisory_id', 'a.executive_summary', 'a.summary_basis', 'a.kind'])
      .where('st.event_uri', '=', r.out.event_uri)
      .executeTakeFirstOrThrow();
    const phases = await app.db
      .selectFrom('phases')
      .selectAll()
      .where('advisory_id', '=', stored.advisory_id)
      .execute();
    const sources = await app.db
      .selectFrom('articles')
      .select('source_key')
      .where('story_id', '=', stored.id)
      .execute();
    await app.close();
    expect(stored.kind).toBe('live');
    expect(phases.length).toBeGreaterThanOrEqual(3);
    expect(sources.map((x) => x.source_key)).toEqual(['s1']);
    const cited = (JSON.parse(stored.executive_summary) as { cites: string[] }[]).flatMap(
      (i) => i.cites,
    );
    expect(cited.length).toBeGreaterThan(0);
    expect(new Set([...cited, ...JSON.parse(stored.summary_basis)])).toEqual(new Set(['s1']));
    const listed = await api('/v1/stories?brand=northwind.example', key.key);
    expect(listed.body.stories.map((x: { event_uri: string }) => x.event_uri)).toContain(
      r.out.event_uri,
    );

    writeFileSync(
      file,
      JSON.stringify({
        url: 'ftp://x',
        title: 't',
        publisher: 'p',
        published_at: '2026-11-20',
        text: 'x',
      }),
    );
    expect(
      (await brs(env, 'story', 'import', '--brand', 'northwind.example', '--file', file)).out,
    ).toEqual({ error: 'url: must be an http or https URL' });
    writeFileSync(
      file,
      JSON.stringify({
        url: 'https://x.example/a',
        title: 'Weather',
        publisher: 'p',
        published_at: '2026-11-20',
        text: 'Sunny all week.',
      }),
    );
    expect(
      (await brs(env, 'story', 'import', '--brand', 'northwind.example', '--file', file)).out,
    ).toEqual({ error: 'article: brand not mentioned' });
  });

  it('billing subscribe', async () => {
    expect((await brs(env, 'billing', 'subscribe', '--account', account)).out).toEqual({
      ok: true,
    });
  });

  it('key revoke takes effect on the next call', async () => {
    const own = (
      await brs(env, 'key', 'create', '--account', account, '--role', 'admin', '--scope', 'full')
    ).out;
    expect((await api('/v1/brands', own.key)).status).toBe(200);
    expect((await brs(env, 'key', 'revoke', '--id', own.id)).out).toEqual({ ok: true });
    const r = await api('/v1/brands', own.key);
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: 'unknown or revoked API key' });
  });

  it('demo seeds a complete data set whose keys work, once', async () => {
    const demoDb = await migratedDatabase();
    const demoEnv = { DATABASE_URL: demoDb.url };
    const r = await brs(demoEnv, 'demo');
    expect(r.code).toBe(0);
    expect(Object.keys(r.out).sort()).toEqual(['accounts', 'keys', 'users']);
    const demoServer = await brsServe(demoEnv);
    const get = (path: string, k: string) =>
      fetch(`${demoServer.url}${path}`, { headers: { 'x-api-key': k } });
    const stories = await get('/v1/stories?brand=acme.com', r.out.keys.northwind_owner.key);
    expect(stories.status).toBe(200);
    expect(((await stories.json()) as any).stories.length).toBeGreaterThanOrEqual(3);
    expect((await get('/v1/brands', r.out.keys.initech_owner.key)).status).toBe(403);
    await demoServer.stop();
    const again = await brs(demoEnv, 'demo');
    expect(again.code).toBe(1);
    expect(again.out.error).toMatch(/^demo: demo data already present \(/);
    await demoDb.drop();
  });

  it('names what it could not find', async () => {
    expect(
      (await brs(env, 'brand', 'add', '--account', 'acc_missing', '--host', 'x.example')).out,
    ).toEqual({ error: 'account acc_missing: not found' });
    expect((await brs(env, 'key', 'revoke', '--id', 'key_missing')).out).toEqual({
      error: 'key key_missing: not found',
    });
  });

  it('demo writes nothing when any of its brands is taken', async () => {
    const db = await migratedDatabase();
    const e = { DATABASE_URL: db.url };
    const acc = (await brs(e, 'account', 'create', '--name', 'Other', '--plan', 'pro')).out.account;
    await brs(e, 'brand', 'add', '--account', acc, '--host', 'globex.com');
    const r = await brs(e, 'demo');
    expect(r.code).toBe(1);
    expect(r.out).toEqual({ error: 'demo: demo data already present (globex.com)' });
    const app = await createContext(loadConfig({ DATABASE_URL: db.url }));
    expect(await app.db.selectFrom('accounts').select('id').execute()).toHaveLength(1);
    await app.close();
    await db.drop();
  });

  it('prints usage errors as JSON too', async () => {
    const r = await brs(env, 'key', 'create');
    expect(r.code).toBe(1);
    expect(r.out).toEqual({ error: "required option '--account <account>' not specified" });
    expect((await brs(env, 'nonsense')).out).toEqual({ error: "unknown command 'nonsense'" });
  });

  it('refuses an empty brand name', async () => {
    const r = await brs(
      env,
      'brand',
      'add',
      '--account',
      account,
      '--host',
      'empty.example',
      '--name',
      ' ',
    );
    expect(r.out).toEqual({ error: 'name: must not be empty' });
  });

  it('fails fast with a clear message when REDIS_URL cannot be reached', async () => {
    const r = await brs({ ...env, REDIS_URL: 'redis://127.0.0.1:1' }, 'serve');
    expect(r.code).toBe(1);
    expect(r.out).toEqual({ error: 'REDIS_URL: cannot connect to redis://127.0.0.1:1 within 5 s' });
  });

  it('webhook add, list, rotate and deliveries; a loopback URL is refused', async () => {
    // An account of its own: no other test's stories send it deliveries.
    const { account } = (
      await brs(env, 'account', 'create', '--name', 'Hooks', '--plan', 'partner')
    ).out;
    const refused = await brs(
      env,
      'webhook',
      'add',
      '--account',
      account,
      '--url',
      'https://127.0.0.1/hook',
      '--events',
      '*',
    );
    expect(refused).toMatchObject({ code: 1, out: { error: 'url: must be on a public host' } });
    const allowed = { ...env, FETCH_ALLOW_HOSTS: '127.0.0.1:9' };
    const added = await brs(
      allowed,
      'webhook',
      'add',
      '--account',
      account,
      '--url',
      'http://127.0.0.1:9/hook',
      '--events',
      'story.created,phase.done',
    );
    expect(added.code).toBe(0);
    expect(added.out).toMatchObject({
      id: expect.stringMatching(/^whe_/),
      secret: expect.stringMatching(/^whsec_/),
      events: ['story.created', 'phase.done'],
    });
    const list = await brs(env, 'webhook', 'list', '--account', account);
    expect(list.out.endpoints).toEqual([
      expect.objectContaining({ id: added.out.id, disabled_at: null }),
    ]);
    expect(JSON.stringify(list.out)).not.toContain(added.out.secret);
    const rotated = await brs(env, 'webhook', 'rotate', '--id', added.out.id);
    expect(rotated.out.secret).not.toBe(added.out.secret);
    const deliveries = await brs(env, 'webhook', 'deliveries', '--account', account);
    expect(deliveries).toMatchObject({ code: 0, out: { deliveries: [] } });

    const id = added.out.id;
    expect((await brs(env, 'webhook', 'pause', '--id', id)).out).toEqual({ id, paused: true });
    const paused = await brs(env, 'webhook', 'list', '--account', account);
    expect(paused.out.endpoints[0].disabled_at).toEqual(expect.any(String));
    expect((await brs(env, 'webhook', 'resume', '--id', id)).out).toEqual({ id, paused: false });
    expect((await brs(env, 'webhook', 'delete', '--id', id)).out).toEqual({ ok: true, id });
    expect((await brs(env, 'webhook', 'list', '--account', account)).out.endpoints).toEqual([]);
    expect((await brs(env, 'webhook', 'delete', '--id', id)).out).toEqual({
      error: `endpoint ${id}: not found`,
    });
  });

  it('delegation revoke, as the client', async () => {
    const r = await brs(
      env,
      'delegation',
      'revoke',
      '--partner',
      account,
      '--client',
      client,
      '--brand',
      'nobody.example',
    );
    expect(r).toMatchObject({ code: 1, out: { error: 'not found' } });
  });

  it('reports a bad configuration clearly', async () => {
    const r = await brs({ ...env, PORT: 'eighty' }, 'migrate');
    expect(r.code).toBe(1);
    expect(r.out.error).toContain('PORT');
  });
});
