import type { AppContext } from '../context.js';
import { type Db, withTransaction } from '../db/database.js';
import { queueEmail } from '../email/outbox.js';
import { invalid } from '../errors.js';
import { DIGEST_SEND } from '../jobs/kinds.js';
import { enqueue } from '../jobs/queue.js';
import { SEVERITIES } from '../pipeline/taxonomy.js';
import { unsubscribeHeaders, unsubscribeUrl } from './alerts.js';
import { instantAt, localParts, nextDate } from './local-time.js';
import { myOpenPhases } from './overview.js';
import { readableBrandIds } from './stories.js';

/**
 * Digests (docs/alerts.md): a daily or weekly email per person with the period's stories
 * by brand and severity, against the period before, and their open phases; at the hour
 * they chose in their own time zone, and not at all when there is nothing to say.
 *
 * Each person's next digest is a time in `users.digest_next_at`. A scheduler in every
 * instance moves the times that are due to the next one, each with a compare-and-set, and
 * queues the digest with the same write: whichever instance moves it queues it, once.
 */

export const DIGEST_RHYTHMS = ['off', 'daily', 'weekly'] as const;
export type DigestRhythm = (typeof DIGEST_RHYTHMS)[number];
const PERIOD_DAYS = { daily: 1, weekly: 7 } as const;
/** The most serious first, as a digest lists them. */
const GRAVEST_FIRST = [...SEVERITIES].reverse();

/**
 * The next digest strictly after `after`: the next `hour`:00 on the person's clock, and
 * for a weekly digest the next Monday's.
 */
export function nextDigestAt(
  after: Date,
  rhythm: 'daily' | 'weekly',
  hour: number,
  zone: string,
): Date {
  let date = localParts(after, zone).date;
  for (let i = 0; i < 9; i++) {
    const at = instantAt(date, hour * 60, zone);
    const monday = new Date(`${date}T00:00:00Z`).getUTCDay() === 1;
    if (at > after && (rhythm === 'daily' || monday)) return at;
    date = nextDate(date);
  }
  throw new Error('no digest time within 9 days');
}

/** A person's digest settings; choosing a rhythm schedules the next digest. */
export async function setDigest(
  db: Db,
  userId: string,
  rhythm: DigestRhythm,
  hour: number,
  now: Date,
): Promise<{ digest: DigestRhythm; next_at: string | null }> {
  if (!Number.isInteger(hour) || hour < 0 || hour > 23) throw invalid('hour: must be 0 to 23');
  const user = await db
    .selectFrom('users')
    .select('time_zone')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  const next =
    rhythm === 'off'
      ? null
      : nextDigestAt(now, rhythm, hour, user.time_zone ?? 'UTC').toISOString();
  await db
    .updateTable('users')
    .set({ digest: rhythm, digest_hour: hour, digest_next_at: next })
    .where('id', '=', userId)
    .execute();
  return { digest: rhythm, next_at: next };
}

const SCHEDULE_BATCH = 100;

/**
 * Queues the digests that are due, oldest first, a batch at a time until none is left;
 * answers how many this instance queued. One person's failure (a zone the runtime no
 * longer knows) is logged and skips them, not the others.
 */
export async function scheduleDueDigests(app: AppContext): Promise<number> {
  const now = app.clock.now();
  let queued = 0;
  // Keyset over (digest_next_at, id): a batch never reads a person twice.
  let after: { at: string; id: string } | undefined;
  for (;;) {
    let q = app.db
      .selectFrom('users')
      .select(['id', 'digest', 'digest_hour', 'digest_next_at', 'time_zone'])
      .where('digest_next_at', '<=', now.toISOString())
      .where('digest', '!=', 'off');
    if (after) {
      const { at, id } = after;
      q = q.where((eb) => eb(eb.refTuple('digest_next_at', 'id'), '>', eb.tuple(at, id)));
    }
    const due = await q.orderBy('digest_next_at').orderBy('id').limit(SCHEDULE_BATCH).execute();
    for (const u of due) {
      try {
        if (await scheduleOne(app, u, now)) queued++;
      } catch (err) {
        app.log?.warn({ err, user: u.id }, 'digest not scheduled');
      }
    }
    const last = due.at(-1);
    if (due.length < SCHEDULE_BATCH || !last?.digest_next_at) return queued;
    after = { at: last.digest_next_at, id: last.id };
  }
}

/** Moves one person's due digest to the next time and queues it, unless another did. */
async function scheduleOne(
  app: AppContext,
  u: {
    id: string;
    digest: DigestRhythm;
    digest_hour: number;
    digest_next_at: string | null;
    time_zone: string | null;
  },
  now: Date,
): Promise<boolean> {
  if (u.digest === 'off' || !u.digest_next_at) return false;
  const due = u.digest_next_at;
  const next = nextDigestAt(now, u.digest, u.digest_hour, u.time_zone ?? 'UTC').toISOString();
  return withTransaction(app.db, async (trx) => {
    const moved = await trx
      .updateTable('users')
      .set({ digest_next_at: next })
      .where('id', '=', u.id)
      .where('digest_next_at', '=', due)
      .executeTakeFirst();
    // Another instance moved it first: that one queues the digest.
    if (Number(moved.numUpdatedRows) === 0) return false;
    await enqueue(trx, DIGEST_SEND, { user: u.id, until: due }, { now: now.toISOString() });
    return true;
  });
}

/** Queues due digests now and every minute; answers how to stop. */
export function startDigestScheduler(app: AppContext): () => void {
  const run = () => {
    scheduleDueDigests(app).catch((err) => app.log?.warn({ err }, 'digest scheduling failed'));
  };
  run();
  const timer = setInterval(run, 60_000);
  timer.unref();
  return () => clearInterval(timer);
}

/** Stories per brand and severity detected in [from, to). */
async function storiesIn(db: Db, brandIds: string[], from: string, to: string) {
  if (brandIds.length === 0) return [];
  const rows = await db
    .selectFrom('stories as s')
    .innerJoin('brands as b', 'b.id', 's.brand_id')
    .select(['b.host', 's.severity', (eb) => eb.fn.countAll<number>().as('n')])
    .where('s.brand_id', 'in', brandIds)
    .where('s.detected_at', '>=', from)
    .where('s.detected_at', '<', to)
    .groupBy(['b.host', 's.severity'])
    .execute();
  return rows.map((r) => ({ ...r, n: Number(r.n) }));
}

/** The high and critical stories of the period, newest first. */
async function seriousIn(db: Db, brandIds: string[], from: string, to: string) {
  if (brandIds.length === 0) return [];
  return db
    .selectFrom('stories as s')
    .innerJoin('brands as b', 'b.id', 's.brand_id')
    .select(['b.host', 's.event_uri', 's.title', 's.severity'])
    .where('s.brand_id', 'in', brandIds)
    .where('s.severity', 'in', ['high', 'critical'])
    .where('s.detected_at', '>=', from)
    .where('s.detected_at', '<', to)
    .orderBy('s.detected_at', 'desc')
    .limit(10)
    .execute();
}

const stories = (n: number) => `${n} ${n === 1 ? 'story' : 'stories'}`;

/** The `digest.send` job: the period ending `until`, for each team the person is in. */
export async function sendDigestJob(app: AppContext, payload: { user: string; until: string }) {
  const user = await app.db
    .selectFrom('users')
    .select(['id', 'email', 'digest', 'time_zone'])
    .where('id', '=', payload.user)
    .executeTakeFirst();
  if (!user || user.digest === 'off') return { skipped: 'off' };
  const days = PERIOD_DAYS[user.digest];
  const zone = user.time_zone ?? 'UTC';
  const until = new Date(payload.until);
  // A period is so many days of the person's calendar: 23 or 25 hours across a
  // daylight-saving change, so each digest starts where the last one ended.
  const back = (at: Date) => {
    const local = localParts(at, zone);
    return instantAt(nextDate(local.date, -days), local.minutes, zone);
  };
  const since = back(until);
  const before = back(since);
  const teams = await app.db
    .selectFrom('memberships as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select(['a.id', 'a.name'])
    .where('m.user_id', '=', user.id)
    .where('m.status', '=', 'active')
    .orderBy('a.name')
    .execute();
  const today = until.toISOString().slice(0, 10);
  const sections: string[] = [];
  for (const team of teams) {
    const ids = await readableBrandIds(app.db, team.id);
    const now = await storiesIn(app.db, ids, since.toISOString(), payload.until);
    const prev = await storiesIn(app.db, ids, before.toISOString(), since.toISOString());
    const phases = await myOpenPhases(app.db, user.id, ids);
    if (now.length === 0 && phases.length === 0) continue;
    const lines = [`${team.name}`];
    const hosts = [...new Set(now.map((r) => r.host))].sort();
    for (const host of hosts) {
      const rows = now.filter((r) => r.host === host);
      const total = rows.reduce((a, r) => a + r.n, 0);
      const was = prev.filter((r) => r.host === host).reduce((a, r) => a + r.n, 0);
      const change =
        was === 0
          ? 'none the period before'
          : total === was
            ? 'as many as the period before'
            : `${total > was ? 'up' : 'down'} from ${was} the period before`;
      const bySeverity = GRAVEST_FIRST.map(
        (s) => [s, rows.find((r) => r.severity === s)?.n ?? 0] as const,
      )
        .filter(([, n]) => n > 0)
        .map(([s, n]) => `${n} ${s}`)
        .join(', ');
      lines.push(`  ${host}: ${stories(total)} (${bySeverity}); ${change}`);
    }
    const serious = await seriousIn(app.db, ids, since.toISOString(), payload.until);
    if (serious.length) {
      lines.push('  High and critical:');
      for (const s of serious) {
        lines.push(
          `  - [${s.severity}] ${s.title}\n    ${app.config.baseUrl}/app/stories/${encodeURIComponent(s.host)}/${encodeURIComponent(s.event_uri)}`,
        );
      }
    }
    if (phases.length) {
      const overdue = phases.filter((p) => p.due_on && p.due_on < today).length;
      lines.push(
        `  Open phases assigned to you: ${phases.length}${overdue ? ` (${overdue} overdue)` : ''}`,
      );
      for (const p of phases) {
        lines.push(
          `  - Phase ${p.number}: ${p.title}${p.due_on ? ` (due ${p.due_on})` : ''}, on "${p.story}"`,
        );
      }
    }
    sections.push(lines.join('\n'));
  }
  // Nothing happened and nothing waits: no email.
  if (sections.length === 0) return { skipped: 'nothing' };
  const unsubscribe = await unsubscribeUrl(app, { digest: user.id });
  const label = user.digest === 'daily' ? 'Daily' : 'Weekly';
  const queued = await queueEmail(
    app.db,
    {
      id: `eml_digest_${user.id}_${payload.until}`,
      accountId: null,
      to: user.email,
      kind: 'digest',
      subject: `${label} digest: ${sections.length === 1 ? teams.find((t) => sections[0]!.startsWith(t.name))?.name : `${sections.length} teams`}`,
      text: `${label} digest from ${since.toISOString().slice(0, 16).replace('T', ' ')} to ${payload.until.slice(0, 16).replace('T', ' ')} UTC (your time zone: ${zone}).\n\n${sections.join('\n\n')}\n\nThe overview: ${app.config.baseUrl}/app\n\n--\nStop these digests: ${unsubscribe}\nChange them: ${app.config.baseUrl}/app/alerts\n`,
      headers: unsubscribeHeaders(unsubscribe),
    },
    app.clock.now().toISOString(),
  );
  return { email: queued };
}
