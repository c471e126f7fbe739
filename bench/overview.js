/**
 * The overview page (issue 20: under 200 ms with 100,000 stories on either database),
 * measured by `npm run bench` after the API scenarios. An agency reads ten client brands
 * of 10,000 stories each, an hour apart (the newest 90 days hold about 21,600 of them);
 * its owner loads /app over HTTP for the 30- and 90-day periods, all brands and one.
 *
 * The baseline, in the same run: the day-by-severity series the page draws, computed the
 * way the counts replace, from the stories and articles themselves, on the same database.
 */
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { loadConfig } from '../dist/config.js';
import { createContext } from '../dist/context.js';
import { addUser, createAccount } from '../dist/domain/accounts.js';
import { grantDelegation } from '../dist/domain/delegations.js';
import { percentile } from './percentile.js';
import { seed } from './seed.js';

export const OVERVIEW_DATA = { brands: 10, keys: 1, storiesPerBrand: 10_000 };
export const OVERVIEW_TARGET_MS = 200;
const SECONDS = 5;
const CONNECTIONS = 4;
const EMAIL = 'owner@agency.example';
const PASSWORD = 'correct horse battery staple';

/** Signs in as a browser would: the form's token and cookie, then the post. */
async function signIn(port) {
  const base = `http://127.0.0.1:${port}`;
  const form = await fetch(`${base}/signin`);
  const cookies = form.headers.getSetCookie().map((c) => c.split(';')[0]);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  const res = await fetch(`${base}/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies.join('; ') },
    body: new URLSearchParams({ email: EMAIL, password: PASSWORD, _csrf: csrf ?? '' }),
  });
  if (res.status !== 303) throw new Error(`overview bench: sign-in answered ${res.status}`);
  // The sign-in replaces the cookies of the form's visit: the newest of each name.
  const jar = new Map();
  for (const c of [...cookies, ...res.headers.getSetCookie().map((x) => x.split(';')[0])]) {
    const i = c.indexOf('=');
    jar.set(c.slice(0, i), c.slice(i + 1));
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
}

/** Seeds the agency and its clients; answers the hosts of the client brands. */
export async function seedOverview(databaseUrl) {
  const data = await seed(databaseUrl, OVERVIEW_DATA);
  const app = await createContext(loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }));
  try {
    const agency = await createAccount(app, 'Agency', 'agency');
    await addUser(app, { accountId: agency, email: EMAIL, password: PASSWORD, role: 'owner' });
    const hosts = Object.keys(data.stories);
    for (const host of hosts) {
      const { account_id } = await app.db
        .selectFrom('brands')
        .select('account_id')
        .where('host', '=', host)
        .executeTakeFirstOrThrow();
      await grantDelegation(app, { partnerId: agency, clientId: account_id, host, actor: 'bench' });
    }
    return hosts;
  } finally {
    await app.close();
  }
}

/** The baseline: the 90-day series recomputed from the stories, as the counts avoid. */
export async function recomputedSeries(databaseUrl, hosts) {
  const app = await createContext(loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }));
  try {
    const since = new Date(Date.now() - 89 * 86_400_000).toISOString().slice(0, 10);
    // Literal arguments: PostgreSQL matches the GROUP BY expression to the selected one by
    // its text, and two bound parameters would be two different expressions.
    const day = () => sql`substr(s.detected_at, 1, 10)`;
    const query = () =>
      app.db
        .selectFrom('articles as a')
        .innerJoin('stories as s', 's.id', 'a.story_id')
        .innerJoin('brands as b', 'b.id', 's.brand_id')
        .select((eb) => [
          day().as('day'),
          's.severity',
          eb.fn.countAll().as('mentions'),
          eb.fn.avg('a.sentiment').as('sentiment'),
        ])
        .where('b.host', 'in', hosts)
        .where('s.detected_at', '>=', since)
        .groupBy([day, 's.severity'])
        .execute();
    await query(); // warm
    const times = [];
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      await query();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return { p50: times[5], max: times[9] };
  } finally {
    await app.close();
  }
}

/** Loads the page at a few concurrent browsers; answers its latency and rate. */
export async function loadOverview(port, path) {
  const cookie = await signIn(port);
  const check = await fetch(`http://127.0.0.1:${port}${path}`, {
    headers: { cookie },
    redirect: 'manual',
  });
  const html = await check.text();
  if (check.status !== 200 || !html.includes('Mentions per day')) {
    throw new Error(`overview bench: ${path} answered ${check.status}`);
  }
  const latencies = [];
  const run = autocannon({
    url: `http://127.0.0.1:${port}${path}`,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { cookie },
  });
  run.on('response', (_c, _s, _b, ms) => latencies.push(ms));
  const r = await run;
  latencies.sort((a, b) => a - b);
  const pct = (p) => percentile(latencies, p);
  return {
    rps: r.requests.average,
    p50: pct(50),
    p99: pct(99),
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}
