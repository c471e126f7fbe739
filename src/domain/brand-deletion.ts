import { type AppContext, inTransaction } from '../context.js';
import { lockRow, lockRows } from '../db/locks.js';
import { conflict } from '../errors.js';
import { CLIENT_BRANDS } from '../jobs/kinds.js';
import { enqueue } from '../jobs/queue.js';
import { writeAudit } from './audit.js';

/**
 * Deletes a brand its own account no longer monitors, with everything made for it: its
 * feeds and what they read, its stories with their articles, advisories, phases, Brand
 * Notes and shares (their pages answer "not found"), and the delegations that let
 * partners act on it (they lose it at their next request). Kept: the billing ledger
 * (money already counted stays counted) and the audit trail, which say what happened.
 * Refused while a payment for one of its stories is under way, so none is lost half way.
 * One transaction: it all goes, or nothing does.
 */
export async function deleteBrand(
  app: AppContext,
  brand: { id: string; account_id: string; host: string },
  actor: string,
): Promise<{ host: string; stories: number; partners: number }> {
  const at = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    // Stories before their brand: the order an unlock takes them (story, then brand), so
    // the two wait for each other instead of deadlocking.
    await lockRows(trx, 'stories', { brand_id: brand.id });
    await lockRow(trx, 'brands', { id: brand.id });
    const stories = trx.selectFrom('stories').select('id').where('brand_id', '=', brand.id);
    const paying = await trx
      .selectFrom('checkout_sessions')
      .select('id')
      .where('story_id', 'in', stories)
      .where('status', '=', 'open')
      .union(
        trx
          .selectFrom('metering_reservations')
          .select('id')
          .where('story_id', 'in', stories)
          .where('status', '=', 'reserved'),
      )
      .limit(1)
      .executeTakeFirst();
    if (paying) {
      throw conflict(
        'brand: a payment for one of its stories is under way; try again once it ends',
      );
    }
    const advisories = trx.selectFrom('advisories').select('id').where('story_id', 'in', stories);
    const shares = trx.selectFrom('shares').select('id').where('story_id', 'in', stories);
    const feeds = trx.selectFrom('brand_feeds').select('id').where('brand_id', '=', brand.id);
    const { count } = await trx
      .selectFrom('stories')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('brand_id', '=', brand.id)
      .executeTakeFirstOrThrow();
    const partners = await trx
      .selectFrom('delegations')
      .select('partner_account_id')
      .where('brand_id', '=', brand.id)
      .where('status', '=', 'active')
      .execute();
    // Each partner loses the brand as if the client had revoked it: audited, and its
    // client-brand billing recalculated (delegations.ts does the same on a revoke).
    for (const p of partners) {
      await writeAudit(trx, {
        accountId: brand.account_id,
        brandId: brand.id,
        actor,
        action: 'delegation.revoked',
        details: { partner: p.partner_account_id, reason: 'brand deleted' },
        at,
      });
      await enqueue(trx, CLIENT_BRANDS, { account: p.partner_account_id }, { now: at });
    }
    // Children first: the foreign keys hold at every step.
    await trx.deleteFrom('share_guests').where('share_id', 'in', shares).execute();
    await trx.deleteFrom('shares').where('story_id', 'in', stories).execute();
    await trx.deleteFrom('phases').where('advisory_id', 'in', advisories).execute();
    await trx.deleteFrom('advisories').where('story_id', 'in', stories).execute();
    await trx.deleteFrom('articles').where('story_id', 'in', stories).execute();
    await trx.deleteFrom('brand_notes').where('story_id', 'in', stories).execute();
    await trx.deleteFrom('metering_reservations').where('story_id', 'in', stories).execute();
    await trx.deleteFrom('story_documents').where('brand_id', '=', brand.id).execute();
    await trx.deleteFrom('alerts').where('brand_id', '=', brand.id).execute();
    await trx.deleteFrom('stories').where('brand_id', '=', brand.id).execute();
    // After the stories: their triggers count each one out first.
    await trx.deleteFrom('story_status_counts').where('brand_id', '=', brand.id).execute();
    await trx.deleteFrom('coverage_days').where('brand_id', '=', brand.id).execute();
    await trx.deleteFrom('feed_items').where('feed_id', 'in', feeds).execute();
    await trx.deleteFrom('brand_feeds').where('brand_id', '=', brand.id).execute();
    await trx
      .deleteFrom('connector_items')
      .where(
        'brand_connector_id',
        'in',
        trx.selectFrom('brand_connectors').select('id').where('brand_id', '=', brand.id),
      )
      .execute();
    await trx.deleteFrom('brand_connectors').where('brand_id', '=', brand.id).execute();
    await trx.deleteFrom('quiet_mentions').where('brand_id', '=', brand.id).execute();
    await trx.deleteFrom('story_requests').where('brand_id', '=', brand.id).execute();
    await trx.deleteFrom('delegations').where('brand_id', '=', brand.id).execute();
    await trx.deleteFrom('brands').where('id', '=', brand.id).execute();
    const summary = { host: brand.host, stories: Number(count), partners: partners.length };
    await writeAudit(trx, {
      accountId: brand.account_id,
      actor,
      action: 'brand.deleted',
      details: summary,
      at,
    });
    return summary;
  });
}
