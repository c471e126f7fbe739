/**
 * `npm run bench:connectors`: issue 43's scale run. 10,000 brands with every keyless
 * search connector on (Google News, Bing News, GDELT, Hacker News, Reddit, Mastodon:
 * 60,000 polled rows), polled by three `brs serve` processes on one PostgreSQL database as
 * docs/deployment.md's cluster runs them, against one local server answering as each
 * service does (each service's published rate lifted with CONNECTOR_RATES: the local
 * server has none). One instance is killed (SIGKILL) part way through.
 *
 * The rows start spread evenly over the poll interval, as a running service's are. The
 * run reports, for the polls due in it: how late each was asked (from its due time to the
 * local server seeing the request), how many were never asked, how many rows were claimed
 * twice, and how many items the services handed out were never remembered; and the
 * database's load (commits and rows written a second, its processes' CPU).
 *
 * CONN_BRANDS (10000), CONN_SECONDS (300: the run), CONN_KILL_AT (120: seconds in),
 * CONN_INTERVAL_S (900: CONNECTOR_POLL_MS), BENCH_POSTGRES_URL as for `npm run bench`.
 * Exits non-zero when a poll ran twice or an item was lost; the figures are the output.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../dist/config.js';
import { createContext } from '../dist/context.js';
import { migrate } from '../dist/db/database.js';
import { createAccount } from '../dist/domain/accounts.js';
import { randomId } from '../dist/ids.js';
import { freePort } from './free-port.js';
import { percentile } from './percentile.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BRANDS = Number(process.env.CONN_BRANDS ?? 10_000);
const SECONDS = Number(process.env.CONN_SECONDS ?? 300);
const KILL_AT = Number(process.env.CONN_KILL_AT ?? 120);
const INTERVAL_S = Number(process.env.CONN_INTERVAL_S ?? 900);
const POSTGRES = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CONNECTORS = ['google-news', 'bing-news', 'gdelt', 'hacker-news', 'reddit', 'mastodon'];
/** A killed poll's job is taken over once its lease lapses. */
const LEASE_MS = 15_000;
/** Each service publishes one new item per brand per interval; its answer holds the last two. */
const BUCKET_MS = INTERVAL_S * 1000;

// --- The database ---------------------------------------------------------------------
const dbName = `brs_connectors_${randomId(8)}`;
const admin = new pg.Client({ connectionString: POSTGRES });
await admin.connect();
await admin.query(`create database ${dbName}`);
const dbUrl = new URL(POSTGRES);
dbUrl.pathname = `/${dbName}`;
const DATABASE_URL = dbUrl.toString();

const seeder = await createContext(
  loadConfig({ DATABASE_URL, LOG_LEVEL: 'fatal', CONNECTORS: '' }),
);
await migrate(seeder.db);
const account = await createAccount(seeder, 'Scale run', 'agency');
const names = new Map(); // brand id → name
const seededAt = new Date().toISOString();
for (let from = 0; from < BRANDS; from += 1000) {
  const brands = [];
  for (let i = from; i < Math.min(BRANDS, from + 1000); i++) {
    const id = `brd_scale${String(i).padStart(6, '0')}`;
    const name = `Vantor${i}`;
    names.set(id, name);
    brands.push({
      id,
      account_id: account,
      host: `vantor${i}.example`,
      name,
      verified: 1,
      verified_at: seededAt,
      aliases: '[]',
      created_at: seededAt,
    });
  }
  await seeder.db.insertInto('brands').values(brands).execute();
  await seeder.db
    .insertInto('brand_connectors')
    .values(
      brands.flatMap((b) =>
        CONNECTORS.map((c) => ({
          id: `${b.id}.${c}`,
          brand_id: b.id,
          connector: c,
          // Spread over the interval below.
          next_poll_at: '2099-01-01T00:00:00.000Z',
          // Read before: what the services hand out now is news, not a first backlog.
          first_read_at: seededAt,
          created_at: seededAt,
        })),
      ),
    )
    .execute();
}
const byName = new Map([...names].map(([id, name]) => [name.toLowerCase(), id]));

// --- The services, answering as each does ----------------------------------------------
/** Every request seen: when, for which row. */
const requests = [];
/** Every item handed out, by row: its key. */
const handed = new Map();
const hand = (row, key) => {
  if (!handed.has(row)) handed.set(row, new Set());
  handed.get(row).add(key);
};
const json = (res, body) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const rss = (res) =>
  res
    .writeHead(200, { 'content-type': 'application/rss+xml' })
    .end('<?xml version="1.0"?><rss version="2.0"><channel><title>s</title></channel></rss>');
/** The brand a search asks about: the first quoted name, or the query itself. */
const brandOf = (q) => byName.get((/"([^"]+)"/.exec(q ?? '')?.[1] ?? q ?? '').toLowerCase());
/** The buckets whose item a service's answer now holds: this interval's and the last. */
const buckets = () => {
  const b = Math.floor(Date.now() / BUCKET_MS);
  return [b, b - 1];
};
const site = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  const t = Date.now();
  const seen = (connector, brand) => {
    if (brand) requests.push({ t, row: `${brand}.${connector}` });
  };
  switch (url.pathname) {
    case '/rss/search':
      seen('google-news', brandOf(url.searchParams.get('q')));
      return rss(res);
    case '/news/search':
      seen('bing-news', brandOf(url.searchParams.get('q')));
      return rss(res);
    case '/api/v2/doc/doc':
      seen('gdelt', brandOf(url.searchParams.get('query')));
      return json(res, {});
    case '/search.json':
      seen('reddit', brandOf(url.searchParams.get('q')));
      return json(res, { kind: 'Listing', data: { after: null, children: [] } });
    case '/api/v1/search_by_date': {
      const brand = brandOf(url.searchParams.get('query'));
      seen('hacker-news', brand);
      const since = Number(
        /created_at_i>(\d+)/.exec(url.searchParams.get('numericFilters') ?? '')?.[1] ?? 0,
      );
      const hits = buckets()
        .map((b) => ({
          objectID: `${brand}-${b}`,
          created_at_i: Math.floor((b * BUCKET_MS) / 1000),
          title: `Ask HN: ${names.get(brand)} support this week`,
          url: null,
          author: `user${b % 97}`,
          story_text: `${names.get(brand)} support has not answered my ticket this week.`,
          points: 1,
          num_comments: 0,
        }))
        .filter((h) => h.created_at_i > since);
      for (const h of hits) hand(`${brand}.hacker-news`, h.objectID);
      return json(res, { hits, nbHits: hits.length, hitsPerPage: 50 });
    }
    default: {
      const tag = /^\/api\/v1\/timelines\/tag\/([^/]+)$/.exec(url.pathname)?.[1];
      if (!tag) return res.writeHead(404).end();
      const brand = byName.get(tag);
      seen('mastodon', brand);
      const since = url.searchParams.get('min_id') ?? '0';
      const statuses = buckets()
        .map((b) => ({
          id: String(b * 1000 + 1),
          uri: `https://social.example/users/u/statuses/${brand}-${b}`,
          url: `https://social.example/@u/${brand}-${b}`,
          created_at: new Date(b * BUCKET_MS).toISOString(),
          content: `<p>Queued an hour at the new ${names.get(brand)} store.</p>`,
          replies_count: 0,
          reblogs_count: 0,
          favourites_count: 1,
          account: { acct: `u${b % 89}@social.example`, followers_count: 20 },
        }))
        .filter((s) => BigInt(s.id) > BigInt(since));
      for (const s of statuses) hand(`${brand}.mastodon`, s.uri);
      return json(res, statuses);
    }
  }
});
site.listen(0, '127.0.0.1');
await once(site, 'listening');
const services = `http://127.0.0.1:${site.address().port}`;

// The rows due, spread evenly over the interval, as a running service's are.
// They start half a minute on, once the instances are up.
const start = Date.now() + 30_000;
await admin.end();
const db = new pg.Client({ connectionString: DATABASE_URL });
await db.connect();
await db.query(
  `update brand_connectors set next_poll_at = to_char(
     (timestamptz 'epoch' + ($1::bigint + (abs(hashtext(id)) % $2::bigint)) * interval '1 millisecond') at time zone 'UTC',
     'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  [start, INTERVAL_S * 1000],
);
const due = new Map(
  (await db.query('select id, next_poll_at from brand_connectors')).rows.map((r) => [
    r.id,
    Date.parse(r.next_poll_at),
  ]),
);

// --- Three instances -------------------------------------------------------------------
const env = {
  ...process.env,
  DATABASE_URL,
  LOG_LEVEL: 'warn',
  WORKERS: '1',
  HOST: '127.0.0.1',
  CONNECTORS: CONNECTORS.join(','),
  CONNECTOR_POLL_MS: String(INTERVAL_S * 1000),
  CONNECTOR_RATES: CONNECTORS.map((c) => `${c}:3000`).join(','),
  GOOGLE_NEWS_URL: services,
  BING_NEWS_URL: services,
  GDELT_URL: services,
  HN_SEARCH_URL: services,
  REDDIT_URL: services,
  MASTODON_URL: services,
  FETCH_ALLOW_HOSTS: new URL(services).host,
  JOB_LEASE_MS: String(LEASE_MS),
};
const instances = [];
for (const name of ['s1', 's2', 's3']) {
  const port = await freePort();
  const child = spawn(process.execPath, [resolve(ROOT, 'bin/brs.js'), 'serve'], {
    env: { ...env, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}` },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  instances.push({ name, port, child });
}
for (const i of instances) {
  for (let k = 0; ; k++) {
    const ok = await fetch(`http://127.0.0.1:${i.port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (k > 120) throw new Error(`${i.name} did not start`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

// --- The run -----------------------------------------------------------------------------
const cpuOf = (pid) => {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in seconds
  } catch {
    return 0;
  }
};
const postgresCpu = () =>
  readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/comm`, 'utf8').trim() === 'postgres';
      } catch {
        return false;
      }
    })
    .reduce((sum, p) => sum + cpuOf(p), 0);
const stats = async () =>
  (
    await db.query(
      'select xact_commit, tup_inserted, tup_updated, tup_deleted from pg_stat_database where datname = $1',
      [dbName],
    )
  ).rows[0];
await new Promise((r) => setTimeout(r, Math.max(0, start - Date.now())));
const before = { stats: await stats(), pg: postgresCpu(), at: Date.now() };
const instanceCpu0 = instances.map((i) => cpuOf(i.child.pid));

let killed = null;
const killTimer = setTimeout(() => {
  killed = instances[1];
  killed.child.kill('SIGKILL');
  killed.at = Date.now();
  console.log(`killed ${killed.name} at ${Math.round((killed.at - start) / 1000)} s`);
}, KILL_AT * 1000);
await new Promise((r) => setTimeout(r, SECONDS * 1000));
clearTimeout(killTimer);
const after = { stats: await stats(), pg: postgresCpu(), at: Date.now() };
const instanceCpu = instances.map((i, k) =>
  i === killed ? null : cpuOf(i.child.pid) - instanceCpu0[k],
);
// The killed instance's poll in hand is taken over once its lease lapses.
await new Promise((r) => setTimeout(r, LEASE_MS + 5000));
for (const i of instances) {
  if (i === killed) continue;
  i.child.kill('SIGTERM');
  await once(i.child, 'exit');
}
const end = after.at;

// --- What happened ---------------------------------------------------------------------
const asked = new Map();
for (const r of requests) {
  if (!asked.has(r.row)) asked.set(r.row, []);
  asked.get(r.row).push(r.t);
}
// Due in the run, leaving the scheduler's minute and the window's spread to ask it.
const cutoff = end - 130_000;
const lags = [];
let missed = 0;
for (const [row, at] of due) {
  if (at > cutoff) continue;
  const times = asked.get(row);
  if (!times) {
    missed++;
    continue;
  }
  lags.push((Math.min(...times) - at) / 1000);
}
lags.sort((a, b) => a - b);
// Two claims of one row closer than half its interval: a poll run twice.
const claims = new Map();
for (const j of (
  await db.query(`select payload, created_at from jobs where name = 'connector.poll'`)
).rows) {
  const row = JSON.parse(j.payload).source;
  if (!claims.has(row)) claims.set(row, []);
  claims.get(row).push(Date.parse(j.created_at));
}
const twice = (times) =>
  times.sort((a, b) => a - b).some((t, i) => i > 0 && t - times[i - 1] < (INTERVAL_S * 1000) / 2);
const jobs = [...claims.values()].filter(twice);
const remembered = new Set(
  (await db.query('select brand_connector_id, item_key from connector_items')).rows.map(
    (r) => `${r.brand_connector_id} ${r.item_key}`,
  ),
);
let items = 0;
let lost = 0;
for (const [row, keys] of handed) {
  for (const key of keys) {
    items++;
    if (!remembered.has(`${row} ${key}`)) lost++;
  }
}
const retried = [...asked.values()].filter(twice).length;
const seconds = (after.at - before.at) / 1000;
const rate = (k) => (Number(after.stats[k]) - Number(before.stats[k])) / seconds;
const polls = requests.filter((r) => r.t <= end).length;

console.log(`\n| scale run | value |\n|---|---|`);
console.log(
  `| brands × connectors | ${BRANDS.toLocaleString('en')} × ${CONNECTORS.length} = ${(BRANDS * CONNECTORS.length).toLocaleString('en')} rows, every ${INTERVAL_S / 60} min |`,
);
console.log(
  `| instances | 3 on PostgreSQL, ${killed ? `${killed.name} killed (SIGKILL) at ${Math.round((killed.at - start) / 1000)} s` : 'none killed'} |`,
);
console.log(
  `| polls asked in ${SECONDS} s | ${polls.toLocaleString('en')} (${(polls / SECONDS).toFixed(1)}/s) |`,
);
console.log(`| polls due, asked / never asked | ${lags.length.toLocaleString('en')} / ${missed} |`);
const at = (p) => (lags.length ? percentile(lags, p) : 0).toFixed(1);
console.log(
  `| lag from due to asked: p50 / p99 / max | ${at(50)} s / ${at(99)} s / ${(lags.at(-1) ?? 0).toFixed(1)} s |`,
);
console.log(`| rows claimed twice | ${jobs.length} |`);
console.log(`| rows asked again (a killed poll taken over) | ${retried} |`);
console.log(`| items handed out / never remembered | ${items.toLocaleString('en')} / ${lost} |`);
console.log(
  `| database: commits/s, rows written/s | ${rate('xact_commit').toFixed(0)}, ${(rate('tup_inserted') + rate('tup_updated') + rate('tup_deleted')).toFixed(0)} |`,
);
console.log(`| database CPU | ${((after.pg - before.pg) / seconds).toFixed(2)} cores |`);
console.log(
  `| instances' CPU | ${instanceCpu.map((c) => (c === null ? 'killed' : `${(c / seconds).toFixed(2)}`)).join(', ')} cores |`,
);

await db.end();
site.close();
const drop = new pg.Client({ connectionString: POSTGRES });
await drop.connect();
await drop.query(`drop database ${dbName} with (force)`);
await drop.end();
await seeder.close();
if (jobs.length > 0 || lost > 0) {
  console.error('a row was claimed twice or an item was lost');
  process.exit(1);
}
