import { z } from 'zod';
import { withTransaction } from '../../db/database.js';
import { writeAudit } from '../../domain/audit.js';
import { reenableShare } from '../../domain/share-suspension.js';
import { addShareGuest, shareUrl } from '../../domain/shares.js';
import { findStoryId } from '../../domain/stories.js';
import { notFound } from '../../errors.js';
import { actorLabel, brandFor } from '../../policy.js';
import { BrandHost, EventUri, TeammateEmail } from '../schemas.js';
import { definePortalOperation } from './define.js';

const StoryRef = { brand: BrandHost, event_uri: EventUri };

/** The story's share, if it has one, with its guests: what the story page shows. */
export const storyShare = definePortalOperation({
  access: {},
  input: z.strictObject(StoryRef),
  async handler({ app, actor }, input) {
    const { brand, relation } = await brandFor(app, actor, input.brand);
    const storyId = await findStoryId(app.db, brand.id, input.event_uri);
    const share = await app.db
      .selectFrom('shares')
      .select(['id', 'token', 'access', 'mode', 'listed', 'suspended_at'])
      .where('story_id', '=', storyId)
      .executeTakeFirst();
    if (!share) return { share: null };
    const guests = await app.db
      .selectFrom('share_guests')
      .select('email')
      .where('share_id', '=', share.id)
      .orderBy('email')
      .execute();
    return {
      share: {
        url: shareUrl(app, share.token),
        access: share.access,
        mode: share.mode,
        listed: share.listed === 1 || (share.listed as unknown) === true,
        guests: guests.map((g) => g.email),
        suspended_at: share.suspended_at,
        // Re-enabling is the brand's own account's decision, never a partner's.
        can_reenable: share.suspended_at !== null && relation === 'own',
      },
    };
  },
});

/**
 * Re-enables a share that stopped when the partner that created it left (the brand's own
 * account only): it becomes the client's and serves again at the same URL.
 */
export const reenableStoryShare = definePortalOperation({
  access: {},
  input: z.strictObject(StoryRef),
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    await reenableShare(app, access, input.event_uri, actorLabel(actor));
    return { ok: true };
  },
});

/** Invites a guest to the story's share (they sign in by an emailed link on its page). */
export const addGuest = definePortalOperation({
  access: {},
  input: z.strictObject({ ...StoryRef, email: TeammateEmail }),
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    await addShareGuest(
      app,
      access,
      input.event_uri,
      input.email,
      actorLabel(actor),
      actor.accountId,
    );
    return { ok: true };
  },
});

export const removeGuest = definePortalOperation({
  access: {},
  input: z.strictObject({ ...StoryRef, email: TeammateEmail }),
  async handler({ app, actor }, input) {
    const access = await brandFor(app, actor, input.brand);
    const storyId = await findStoryId(app.db, access.brand.id, input.event_uri);
    const at = app.clock.now().toISOString();
    await withTransaction(app.db, async (trx) => {
      const share = await trx
        .selectFrom('shares')
        .select('id')
        .where('story_id', '=', storyId)
        .executeTakeFirst();
      if (!share) throw notFound();
      const r = await trx
        .deleteFrom('share_guests')
        .where('share_id', '=', share.id)
        .where('email', '=', input.email.trim().toLowerCase())
        .executeTakeFirst();
      if (Number(r.numDeletedRows) === 0) throw notFound();
      await writeAudit(trx, {
        accountId: access.brand.account_id,
        brandId: access.brand.id,
        storyId,
        actor: actorLabel(actor),
        action: 'share.guest_removed',
        details: { email: input.email.trim().toLowerCase() },
        at,
      });
    });
    return { ok: true };
  },
});
