import { randomBytes } from 'node:crypto';
import { type AppContext, inTransaction } from '../context.js';
import type { Db } from '../db/database.js';
import { conflict, invalid, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { BrandAccess } from '../policy.js';
import { writeAudit } from './audit.js';
import { holdDelegation } from './delegations.js';
import { lockStory } from './story-lock.js';

export type ShareAccess = 'public' | 'guests';
export type ShareMode = 'compact' | 'briefing' | 'full';

export interface ShareSettings {
  access: ShareAccess;
  mode: ShareMode;
  listed: boolean;
}

/**
 * A change to a story's share: on which story, by whom (`actor`, the audit label), for
 * which account (`byAccount`: a partner's share and guests stop with its delegation).
 */
export interface ShareChange {
  access: BrandAccess;
  eventUri: string;
  actor: string;
  byAccount: string;
}

export const shareUrl = (app: AppContext, token: string) => `${app.config.baseUrl}/s/${token}`;

/**
 * The share rules (spec 4.2), refused and never corrected: a public page is anonymous and
 * shows at most the briefing; only a public share can be listed in the index.
 */
export function checkShareSettings(s: ShareSettings): void {
  if (s.access === 'public' && s.mode === 'full') {
    throw invalid('mode: a public share shows at most the briefing; use access guests for full');
  }
  if (s.access === 'guests' && s.listed) {
    throw invalid('listed: only a public share can be listed');
  }
}

/**
 * The settings a request asks for: a new share takes the defaults (public; briefing when
 * public, full when guests, spec 4.2; unlisted), a retune keeps every setting it omits.
 * `listed` belongs to public shares only, so a share that goes to guests leaves the index;
 * a kept mode that public access cannot show (full) is refused like an asked one.
 */
export function resolveShareSettings(
  asked: Partial<ShareSettings>,
  current: ShareSettings | undefined,
): ShareSettings {
  const access = asked.access ?? current?.access ?? 'public';
  const mode = asked.mode ?? current?.mode ?? (access === 'guests' ? 'full' : 'briefing');
  const listed = asked.listed ?? (access === 'public' && current?.listed === true);
  return { access, mode, listed };
}

/**
 * Creates the one share of a story, or retunes it: the URL stays the same, and what the
 * page shows follows the new settings from the next request (a share retuned to guests
 * is out of public view at once). `byAccount` (the caller's account) is recorded as the
 * account that set the share: a share a partner created or retuned stops with its
 * delegation (share-suspension.ts), and a stopped share is only re-enabled, never
 * retuned back into view.
 */
export async function upsertShare(
  app: AppContext,
  { access, eventUri, asked, actor, byAccount }: ShareChange & { asked: Partial<ShareSettings> },
): Promise<{ url: string } & ShareSettings> {
  const at = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    await holdDelegation(trx, access, byAccount);
    const storyId = await lockStory(trx, { brandId: access.brand.id, eventUri }, at);
    const existing = await trx
      .selectFrom('shares')
      .select(['id', 'token', 'access', 'mode', 'listed', 'suspended_at'])
      .where('story_id', '=', storyId)
      .executeTakeFirst();
    if (existing?.suspended_at) {
      throw conflict('share: stopped when its partner left; the brand owner re-enables it');
    }
    const settings = resolveShareSettings(
      asked,
      existing && {
        access: existing.access as ShareAccess,
        mode: existing.mode as ShareMode,
        listed: existing.listed === 1,
      },
    );
    checkShareSettings(settings);
    const values = {
      access: settings.access,
      mode: settings.mode,
      listed: settings.listed ? (1 as const) : (0 as const),
      set_by_account_id: byAccount,
      updated_at: at,
    };
    let token = existing?.token;
    if (existing) {
      await trx.updateTable('shares').set(values).where('id', '=', existing.id).execute();
    } else {
      token = randomBytes(18).toString('base64url');
      await trx
        .insertInto('shares')
        .values({
          id: newId('shr'),
          story_id: storyId,
          token,
          suspended_at: null,
          created_at: at,
          ...values,
        })
        .execute();
    }
    await writeAudit(trx, {
      accountId: access.brand.account_id,
      brandId: access.brand.id,
      storyId,
      actor,
      action: existing ? 'share.retuned' : 'share.created',
      details: { ...settings },
      at,
    });
    return { url: shareUrl(app, token!), ...settings };
  });
}

/** The serving share behind a page's token with its story's identity, or undefined. */
export async function shareByToken(app: AppContext, token: string) {
  if (!/^[A-Za-z0-9_-]{24}$/.test(token)) return undefined;
  return app.db
    .selectFrom('shares as sh')
    .innerJoin('stories as s', 's.id', 'sh.story_id')
    .innerJoin('brands as b', 'b.id', 's.brand_id')
    .select([
      'sh.id',
      'sh.token',
      'sh.access',
      'sh.mode',
      'sh.listed',
      's.event_uri',
      's.brand_id',
      'b.name as brand_name',
      'b.host as brand_host',
      'b.verified as brand_verified',
      'b.account_id',
    ])
    .where('sh.token', '=', token)
    .where('sh.suspended_at', 'is', null)
    .executeTakeFirst();
}

/**
 * Listed public shares for the public index, newest first: of verified brands only, so
 * nobody lists briefings in the name of a brand whose domain they did not prove theirs.
 */
export function listedShares(app: AppContext, limit: number) {
  return app.db
    .selectFrom('shares as sh')
    .innerJoin('stories as s', 's.id', 'sh.story_id')
    .innerJoin('brands as b', 'b.id', 's.brand_id')
    .select(['sh.token', 's.title', 's.severity', 's.detected_at', 'b.name as brand_name'])
    .where('sh.access', '=', 'public')
    .where('sh.listed', '=', 1)
    .where('b.verified', '=', 1)
    .where('sh.suspended_at', 'is', null)
    .orderBy('s.detected_at', 'desc')
    .orderBy('sh.id', 'desc')
    .limit(limit)
    .execute();
}

/** The share of a brand's story with the story's id, inside a transaction; `not found` if none. */
async function shareOf(trx: Db, brandId: string, eventUri: string) {
  const share = await trx
    .selectFrom('shares as sh')
    .innerJoin('stories as s', 's.id', 'sh.story_id')
    .select(['sh.id', 's.id as story_id'])
    .where('s.brand_id', '=', brandId)
    .where('s.event_uri', '=', eventUri)
    .executeTakeFirst();
  if (!share) throw notFound();
  return share;
}

/**
 * Invites a guest to a guests share (the portal manages them; the operator can too). The
 * account that last invited them is kept: a partner's guests leave with its delegation.
 */
export async function addShareGuest(
  app: AppContext,
  { access, eventUri, email, actor, byAccount }: ShareChange & { email: string },
): Promise<void> {
  const at = app.clock.now().toISOString();
  const normalized = email.trim().toLowerCase();
  await inTransaction(app, async (app) => {
    const trx = app.db;
    await holdDelegation(trx, access, byAccount);
    const share = await shareOf(trx, access.brand.id, eventUri);
    await trx
      .insertInto('share_guests')
      .values({
        share_id: share.id,
        email: normalized,
        added_by_account_id: byAccount,
        created_at: at,
      })
      .onConflict((oc) =>
        oc.columns(['share_id', 'email']).doUpdateSet({ added_by_account_id: byAccount }),
      )
      .execute();
    await writeAudit(trx, {
      accountId: access.brand.account_id,
      brandId: access.brand.id,
      storyId: share.story_id,
      actor,
      action: 'share.guest_added',
      details: { email: normalized },
      at,
    });
  });
}

export async function isShareGuest(app: AppContext, shareId: string, email: string) {
  const row = await app.db
    .selectFrom('share_guests')
    .select('email')
    .where('share_id', '=', shareId)
    .where('email', '=', email.trim().toLowerCase())
    .executeTakeFirst();
  return row !== undefined;
}

/** A story's share with its guests, as its page in the portal shows it; null when unshared. */
export async function storyShare(app: AppContext, storyId: string) {
  const share = await app.db
    .selectFrom('shares')
    .select(['id', 'token', 'access', 'mode', 'listed', 'suspended_at'])
    .where('story_id', '=', storyId)
    .executeTakeFirst();
  if (!share) return null;
  const guests = await app.db
    .selectFrom('share_guests')
    .select('email')
    .where('share_id', '=', share.id)
    .orderBy('email')
    .execute();
  return {
    url: shareUrl(app, share.token),
    access: share.access,
    mode: share.mode,
    listed: share.listed === 1 || (share.listed as unknown) === true,
    guests: guests.map((g) => g.email),
    suspended_at: share.suspended_at,
  };
}

/** Takes a guest off a story's share; an unknown share or guest is `not found`. */
export async function removeShareGuest(
  app: AppContext,
  { access, eventUri, email, actor }: Omit<ShareChange, 'byAccount'> & { email: string },
): Promise<void> {
  const at = app.clock.now().toISOString();
  const normalized = email.trim().toLowerCase();
  await inTransaction(app, async (app) => {
    const trx = app.db;
    const share = await shareOf(trx, access.brand.id, eventUri);
    const r = await trx
      .deleteFrom('share_guests')
      .where('share_id', '=', share.id)
      .where('email', '=', normalized)
      .executeTakeFirst();
    if (Number(r.numDeletedRows) === 0) throw notFound();
    await writeAudit(trx, {
      accountId: access.brand.account_id,
      brandId: access.brand.id,
      storyId: share.story_id,
      actor,
      action: 'share.guest_removed',
      details: { email: normalized },
      at,
    });
  });
}

/**
 * Stops sharing a story: the share and its guests are deleted, so its URL and the guests'
 * links answer "not found" from the next request. Sharing again makes a new URL.
 */
export async function stopShare(
  app: AppContext,
  { access, eventUri, actor, byAccount }: ShareChange,
): Promise<void> {
  const at = app.clock.now().toISOString();
  await inTransaction(app, async (app) => {
    const trx = app.db;
    await holdDelegation(trx, access, byAccount);
    const share = await shareOf(trx, access.brand.id, eventUri);
    await lockStory(trx, { id: share.story_id }, at);
    await trx.deleteFrom('share_guests').where('share_id', '=', share.id).execute();
    await trx.deleteFrom('shares').where('id', '=', share.id).execute();
    await writeAudit(trx, {
      accountId: access.brand.account_id,
      brandId: access.brand.id,
      storyId: share.story_id,
      actor,
      action: 'share.stopped',
      at,
    });
  });
}
