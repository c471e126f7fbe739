import { type AppContext, inTransaction } from '../context.js';
import type { Db } from '../db/database.js';
import { forbidden, notFound } from '../errors.js';
import type { BrandAccess } from '../policy.js';
import { writeAudit } from './audit.js';

/**
 * When a partner's delegation of a brand ends (its drop or the client's revocation), in
 * that same transaction: the shares whose settings the partner set (created or retuned)
 * on the brand stop, and the guests it invited to the client's own shares leave. Stopped
 * pages and guest links answer 404 like an unknown share; their rows, settings and guest
 * lists stay, so the client can see them on the story page and re-enable any.
 */
export async function suspendPartnerShares(
  trx: Db,
  d: { partnerId: string; brandId: string; actor: string; at: string },
): Promise<void> {
  const shares = await trx
    .selectFrom('shares as sh')
    .innerJoin('stories as s', 's.id', 'sh.story_id')
    .innerJoin('brands as b', 'b.id', 's.brand_id')
    .select(['sh.id', 's.id as story_id', 'b.account_id'])
    .where('s.brand_id', '=', d.brandId)
    .where('sh.set_by_account_id', '=', d.partnerId)
    .where('sh.suspended_at', 'is', null)
    .execute();
  const guests = await trx
    .selectFrom('share_guests as g')
    .innerJoin('shares as sh', 'sh.id', 'g.share_id')
    .innerJoin('stories as s', 's.id', 'sh.story_id')
    .innerJoin('brands as b', 'b.id', 's.brand_id')
    .select(['g.share_id', 'g.email', 's.id as story_id', 'b.account_id'])
    .where('s.brand_id', '=', d.brandId)
    .where('g.added_by_account_id', '=', d.partnerId)
    .where((eb) =>
      eb.or([
        eb('sh.set_by_account_id', 'is', null),
        eb('sh.set_by_account_id', '!=', d.partnerId),
      ]),
    )
    .where('sh.suspended_at', 'is', null)
    .execute();
  for (const g of guests) {
    await trx
      .deleteFrom('share_guests')
      .where('share_id', '=', g.share_id)
      .where('email', '=', g.email)
      .execute();
    await writeAudit(trx, {
      accountId: g.account_id,
      brandId: d.brandId,
      storyId: g.story_id,
      actor: d.actor,
      action: 'share.guest_removed',
      details: { email: g.email, partner: d.partnerId },
      at: d.at,
    });
  }
  for (const share of shares) {
    await trx
      .updateTable('shares')
      .set({ suspended_at: d.at })
      .where('id', '=', share.id)
      .execute();
    await writeAudit(trx, {
      accountId: share.account_id,
      brandId: d.brandId,
      storyId: share.story_id,
      actor: d.actor,
      action: 'share.suspended',
      details: { partner: d.partnerId },
      at: d.at,
    });
  }
}

/**
 * The client re-enables a share a former partner created on its brand: the share becomes
 * the client's (a later delegation's end no longer stops it) and serves again, with the
 * settings and guests it had. Only the brand's own account decides (403 for a partner);
 * a share that is not suspended is left as it is.
 */
export async function reenableShare(
  app: AppContext,
  access: BrandAccess,
  eventUri: string,
  actor: string,
): Promise<void> {
  if (access.relation !== 'own') throw forbidden("only the brand's own account re-enables a share");
  const at = app.clock.now().toISOString();
  await inTransaction(app, async (app) => {
    const trx = app.db;
    const share = await trx
      .selectFrom('shares as sh')
      .innerJoin('stories as s', 's.id', 'sh.story_id')
      .select(['sh.id', 'sh.suspended_at', 's.id as story_id'])
      .where('s.brand_id', '=', access.brand.id)
      .where('s.event_uri', '=', eventUri)
      .executeTakeFirst();
    if (!share) throw notFound();
    if (share.suspended_at === null) return;
    // Conditional: of two concurrent re-enables, one records it.
    const r = await trx
      .updateTable('shares')
      .set({ suspended_at: null, set_by_account_id: access.brand.account_id, updated_at: at })
      .where('id', '=', share.id)
      .where('suspended_at', 'is not', null)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return;
    await writeAudit(trx, {
      accountId: access.brand.account_id,
      brandId: access.brand.id,
      storyId: share.story_id,
      actor,
      action: 'share.reenabled',
      details: {},
      at,
    });
  });
}
