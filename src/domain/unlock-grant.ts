import { CURRENCY } from '../billing/billing.js';
import type { Db } from '../db/database.js';
import { newId } from '../ids.js';
import { writeAudit } from './audit.js';
import { refreshStoryDocument } from './story-documents.js';

/** The advisory trigger result of spec 2.10. */
export interface UnlockResult {
  ok: boolean;
  /** Whether one of the brand's included monthly units was consumed. */
  counted: boolean;
  billed_eur: number;
  note: string;
  checkout_url?: string;
}

export const ALREADY_UNLOCKED: UnlockResult = {
  ok: true,
  counted: false,
  billed_eur: 0,
  note: 'already unlocked; nothing was charged',
};

export const period = (at: Date) => at.toISOString().slice(0, 7);

/**
 * Unlocks a story, in the caller's transaction that locked it: `unlocked_at`, the ledger
 * row of the unit that paid for it, the story's open checkouts closed (nobody may buy
 * what is already unlocked), the audit entry.
 */
export async function grantUnlock(
  trx: Db,
  u: {
    storyId: string;
    payer: string;
    brandId: string;
    actor: string;
    kind: 'included' | 'metered';
    cents: number;
    externalId: string | null;
    at: Date;
  },
): Promise<void> {
  const at = u.at.toISOString();
  await trx.updateTable('stories').set({ unlocked_at: at }).where('id', '=', u.storyId).execute();
  // Its sources' words become searchable with them.
  await refreshStoryDocument(trx, u.storyId, at);
  await trx
    .insertInto('billing_ledger')
    .values({
      id: newId('led'),
      account_id: u.payer,
      brand_id: u.brandId,
      story_id: u.storyId,
      kind: u.kind,
      amount_cents: u.cents,
      currency: CURRENCY,
      period: period(u.at),
      external_id: u.externalId,
      created_at: at,
    })
    .execute();
  await trx
    .updateTable('checkout_sessions')
    .set({ status: 'canceled' })
    .where('story_id', '=', u.storyId)
    .where('status', '=', 'open')
    .execute();
  await writeAudit(trx, {
    accountId: u.payer,
    brandId: u.brandId,
    storyId: u.storyId,
    actor: u.actor,
    action: 'advisory.unlocked',
    details: { unit: u.kind },
    at,
  });
}
