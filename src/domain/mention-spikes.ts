import { type AppContext, inTransaction } from '../context.js';
import { decode } from '../db/json-columns.js';
import { lockRow } from '../db/locks.js';
import { raiseSpikeAlerts } from './alerts.js';
import { writeAudit } from './audit.js';

/**
 * Spikes (docs/sources.md, "Spikes"; issue 43): a brand's mentions found in the last hour
 * well above their usual level, at least SPIKE_MIN and SPIKE_FACTOR times its hourly mean
 * over the seven days before. Each spike is audited (`mentions.spike`), which is the
 * `mentions.spike` webhook event to the brand's team and partners and a line in its
 * activity; a brand spikes at most once in SPIKE_QUIET. Checked by the connector scheduler.
 */
export const SPIKE_MIN = 5;
export const SPIKE_FACTOR = 3;
const HOUR = 3_600_000;
const SPIKE_QUIET = 6 * HOUR;
const ACTION = 'mentions.spike';

export interface Spike {
  brandId: string;
  mentions: number;
  /** Mentions in an hour, on average, over the seven days before. */
  usual: number;
}

/** The brands spiking now, with their hour's count and their usual one. */
export async function spikingBrands(app: AppContext): Promise<Spike[]> {
  const now = app.clock.now().getTime();
  const hourAgo = new Date(now - HOUR).toISOString();
  const weekAgo = new Date(now - HOUR - 7 * 24 * HOUR).toISOString();
  // Every mention counts: stories' sources, and posts kept with too little reach alone.
  const countSince = async (from: string, to: string) => {
    const [sources, quiet] = await Promise.all([
      app.db
        .selectFrom('articles as a')
        .innerJoin('stories as s', 's.id', 'a.story_id')
        .select((eb) => ['s.brand_id', eb.fn.countAll<number>().as('n')])
        .where('a.created_at', '>=', from)
        .where('a.created_at', '<', to)
        .groupBy('s.brand_id')
        .execute(),
      app.db
        .selectFrom('quiet_mentions')
        .select((eb) => ['brand_id', eb.fn.countAll<number>().as('n')])
        .where('created_at', '>=', from)
        .where('created_at', '<', to)
        .groupBy('brand_id')
        .execute(),
    ]);
    const n = new Map<string, number>();
    for (const r of [...sources, ...quiet])
      n.set(r.brand_id, (n.get(r.brand_id) ?? 0) + Number(r.n));
    return [...n].map(([brand_id, count]) => ({ brand_id, n: count }));
  };
  const lastHour = await countSince(hourAgo, new Date(now + 1).toISOString());
  const busy = lastHour.filter((r) => Number(r.n) >= SPIKE_MIN);
  if (busy.length === 0) return [];
  const week = new Map(
    (await countSince(weekAgo, hourAgo)).map((r) => [r.brand_id, Number(r.n) / (7 * 24)]),
  );
  return busy
    .map((r) => ({
      brandId: r.brand_id,
      mentions: Number(r.n),
      usual: Math.round((week.get(r.brand_id) ?? 0) * 10) / 10,
    }))
    .filter((s) => s.mentions >= SPIKE_FACTOR * s.usual);
}

/**
 * Audits each spike not already told in the last SPIKE_QUIET, once across processes (the
 * brand's row is locked while it is checked); answers how many were told.
 */
export async function announceSpikes(app: AppContext): Promise<number> {
  let told = 0;
  for (const spike of await spikingBrands(app)) {
    await inTransaction(app, async (app) => {
      const trx = app.db;
      if (!(await lockRow(trx, 'brands', { id: spike.brandId }))) return;
      const at = app.clock.now();
      const recent = await trx
        .selectFrom('audit_log')
        .select('id')
        .where('brand_id', '=', spike.brandId)
        .where('action', '=', ACTION)
        .where('created_at', '>', new Date(at.getTime() - SPIKE_QUIET).toISOString())
        .executeTakeFirst();
      if (recent) return;
      const brand = await trx
        .selectFrom('brands')
        .select(['account_id', 'host'])
        .where('id', '=', spike.brandId)
        .executeTakeFirstOrThrow();
      const audit = await writeAudit(trx, {
        accountId: brand.account_id,
        brandId: spike.brandId,
        actor: 'monitor',
        action: ACTION,
        details: { brand: brand.host, mentions: spike.mentions, usual: spike.usual },
        at: at.toISOString(),
      });
      // And to the people whose alert rules ask for spikes, on their channels.
      await raiseSpikeAlerts(
        app,
        { id: audit, brand: { id: spike.brandId, ...brand } },
        { mentions: spike.mentions, usual: spike.usual },
      );
      told++;
    });
  }
  return told;
}

/** The brand's spike of the last hour, if any (the Mentions page's and overview's banner). */
export async function recentSpikes(app: AppContext, brandIds: readonly string[]) {
  if (brandIds.length === 0) return [];
  const rows = await app.db
    .selectFrom('audit_log')
    .select(['details', 'created_at'])
    .where('brand_id', 'in', brandIds)
    .where('action', '=', ACTION)
    .where('created_at', '>', new Date(app.clock.now().getTime() - HOUR).toISOString())
    .orderBy('created_at', 'desc')
    .limit(10)
    .execute();
  return rows.map((r) => {
    const d = decode('audit_log.details', r.details);
    return {
      brand: String(d.brand ?? ''),
      mentions: Number(d.mentions ?? 0),
      usual: Number(d.usual ?? 0),
      at: r.created_at,
    };
  });
}
