import { type AppContext, inTransaction } from '../context.js';
import { encode } from '../db/json-columns.js';
import { lockRow } from '../db/locks.js';
import type { StoryStatus } from '../db/schema.js';
import { conflict, forbidden, invalid } from '../errors.js';
import { BrandMatcher } from '../pipeline/brand-matcher.js';
import { actorLabel, type StoryAct } from '../policy.js';
import { writeAudit } from './audit.js';
import { brandTermsOf, cleanMatchPolicy } from './brands.js';
import { lockStory } from './story-lock.js';

/** Why a person closes a story by hand (docs/api.md, "Closing a story by hand"). */
export const CLOSE_REASONS = ['handled', 'no_action', 'not_about_us'] as const;
export type CloseReason = (typeof CLOSE_REASONS)[number];

/** What each reason reads as, on pages and in the activity. */
export const CLOSE_REASON_TEXT: Record<CloseReason, string> = {
  handled: 'handled',
  no_action: 'needs no action',
  not_about_us: 'not about us',
};

/** Who may teach the brand's detection: its own account's admins (its own settings). */
export const mayTeachDetection = (act: Pick<StoryAct, 'actor' | 'access'>) =>
  act.access.relation === 'own' && ['owner', 'admin'].includes(act.actor.role);

/**
 * Closes an open story by hand. No new article joins a closed story (ingest-article.ts),
 * so "not about us" ends the coverage; with `excludePhrase` it also teaches the brand's
 * detection that phrase is someone else (its match policy's `exclude`), so the next
 * article using it makes no story. The phrase must name the brand, or it excludes nothing.
 */
export async function closeStory(
  app: AppContext,
  act: StoryAct,
  opts: { reason: CloseReason; excludePhrase?: string },
): Promise<{ status: StoryStatus; excluded: string | null }> {
  const at = app.clock.now().toISOString();
  const phrase = opts.excludePhrase?.trim().replace(/\s+/g, ' ') || null;
  if (phrase && opts.reason !== 'not_about_us') {
    throw invalid('exclude_phrase: only a story that is not about the brand teaches detection');
  }
  if (phrase && !mayTeachDetection(act)) {
    throw forbidden("only the brand's own owners and admins change what detection ignores");
  }
  return inTransaction(app, async (app) => {
    const trx = app.db;
    const { id: storyId, ...story } = await lockedStory(app, act, at);
    if (story.status === 'closed') throw conflict('the story is already closed');
    if (phrase) await excludeFromDetection(app, act.access.brand.id, phrase);
    await trx.updateTable('stories').set({ status: 'closed' }).where('id', '=', storyId).execute();
    await writeAudit(trx, {
      accountId: act.access.brand.account_id,
      brandId: act.access.brand.id,
      storyId,
      actor: actorLabel(act.actor),
      action: 'story.closed',
      details: { reason: opts.reason, by_hand: true, ...(phrase && { excluded: phrase }) },
      at,
    });
    return { status: 'closed' as const, excluded: phrase };
  });
}

/** The story locked (lockStory) with what closing and reopening read of it. */
async function lockedStory(app: AppContext, act: StoryAct, at: string) {
  const id = await lockStory(app.db, { brandId: act.access.brand.id, eventUri: act.eventUri }, at);
  return app.db
    .selectFrom('stories')
    .select(['id', 'status', 'assignee_user_id'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

/** Adds a phrase to the brand's excluded ones, in the caller's transaction. */
async function excludeFromDetection(app: AppContext, brandId: string, phrase: string) {
  // Read, add, write back: under the brand's lock, so two at once lose neither phrase.
  await lockRow(app.db, 'brands', { id: brandId });
  const brand = await app.db
    .selectFrom('brands')
    .select(['host', 'name', 'aliases', 'match_policy'])
    .where('id', '=', brandId)
    .executeTakeFirstOrThrow();
  const terms = brandTermsOf(brand);
  // Found as detection finds the brand, without the exclusions already made.
  const found = new BrandMatcher([{ brand: true, terms: { ...terms, match: {} } }]).occurrences(
    phrase,
  );
  if (found.length === 0) {
    throw invalid(
      `exclude_phrase: “${phrase}” does not name ${brand.name}, so it would exclude nothing`,
    );
  }
  if (found.some((o) => o.start === 0 && o.end === phrase.length)) {
    throw invalid(
      `exclude_phrase: “${phrase}” is the brand's name itself; add the words around it ("${phrase} Road")`,
    );
  }
  const policy = cleanMatchPolicy(terms.match);
  if (policy.exclude.some((p) => p.toLowerCase() === phrase.toLowerCase())) return;
  const match = cleanMatchPolicy({ ...policy, exclude: [...policy.exclude, phrase] });
  await app.db
    .updateTable('brands')
    .set({ match_policy: encode('brands.match_policy', match) })
    .where('id', '=', brandId)
    .execute();
}

/**
 * Reopens a closed story: in progress when its plan has any phase assigned or done,
 * assigned when only the story is, new otherwise (docs/api.md, "Story status").
 */
export async function reopenStory(
  app: AppContext,
  act: StoryAct,
): Promise<{ status: StoryStatus }> {
  const at = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    const { id: storyId, ...story } = await lockedStory(app, act, at);
    if (story.status !== 'closed') throw conflict('the story is not closed');
    const worked = await trx
      .selectFrom('phases as p')
      .innerJoin('advisories as a', (j) =>
        j.onRef('a.id', '=', 'p.advisory_id').on('a.kind', '=', 'live'),
      )
      .select('p.id')
      .where('a.story_id', '=', storyId)
      .where((eb) => eb.or([eb('p.status', '=', 'done'), eb('p.assignee_user_id', 'is not', null)]))
      .limit(1)
      .executeTakeFirst();
    const status: StoryStatus = worked
      ? 'in_progress'
      : story.assignee_user_id
        ? 'assigned'
        : 'new';
    await trx.updateTable('stories').set({ status }).where('id', '=', storyId).execute();
    await writeAudit(trx, {
      accountId: act.access.brand.account_id,
      brandId: act.access.brand.id,
      storyId,
      actor: actorLabel(act.actor),
      action: 'story.reopened',
      details: { status },
      at,
    });
    return { status };
  });
}

/**
 * A phrase to offer for "not about us": the first place the story's first article names
 * the brand, with the word after it ("Acme Road"), or before it when it ends a sentence.
 */
export async function suggestedExclusion(app: AppContext, act: StoryAct): Promise<string | null> {
  const row = await app.db
    .selectFrom('articles as ar')
    .innerJoin('stories as s', 's.id', 'ar.story_id')
    .innerJoin('brands as b', 'b.id', 's.brand_id')
    .select(['ar.title', 'ar.text', 'b.host', 'b.name', 'b.aliases', 'b.match_policy'])
    .where('s.brand_id', '=', act.access.brand.id)
    .where('s.event_uri', '=', act.eventUri)
    .orderBy('ar.created_at')
    .limit(1)
    .executeTakeFirst();
  if (!row) return null;
  const terms = brandTermsOf(row);
  const matcher = new BrandMatcher([{ brand: true, terms: { ...terms, match: {} } }]);
  for (const text of [row.title, row.text]) {
    const o = matcher.occurrences(text)[0];
    if (!o) continue;
    const after = /^[\s-]+([\p{L}\p{N}][\p{L}\p{N}'’-]*)/u.exec(text.slice(o.end))?.[1];
    const before = /([\p{L}\p{N}][\p{L}\p{N}'’-]*)[\s-]+$/u.exec(text.slice(0, o.start))?.[1];
    const name = text.slice(o.start, o.end);
    const phrase = after ? `${name} ${after}` : before ? `${before} ${name}` : name;
    return phrase.length <= 100 ? phrase : null;
  }
  return null;
}
