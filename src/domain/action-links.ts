import { effectivePlan } from '../auth/effective-plan.js';
import type { AppContext } from '../context.js';
import { decode } from '../db/json-columns.js';
import type { Actor } from '../policy.js';

/**
 * What an assignment email's signed link stands for: the person it was sent to, acting in
 * the story's account as the member they are (still) there, with the story's brand and
 * id. Null when they are no longer a member.
 */
export async function actionLinkHolder(app: AppContext, storyId: string, userId: string) {
  const who = await app.db
    .selectFrom('stories as s')
    .innerJoin('brands as b', 'b.id', 's.brand_id')
    .innerJoin('memberships as m', (j) => j.onRef('m.account_id', '=', 'b.account_id'))
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select([
      's.event_uri',
      'b.host',
      'm.account_id',
      'm.role',
      'u.email',
      'a.plan',
      'a.trial_plan',
      'a.trial_ends_at',
    ])
    .where('s.id', '=', storyId)
    .where('m.user_id', '=', userId)
    .where('m.status', 'in', ['active', 'invited'])
    .executeTakeFirst();
  if (!who) return null;
  const actor: Actor = {
    kind: 'user',
    userId,
    email: who.email,
    accountId: who.account_id,
    plan: effectivePlan(who, app.clock.now()),
    role: who.role,
    scope: null,
  };
  return { actor, brand: who.host, eventUri: who.event_uri };
}

/**
 * The story an assignment link shows, with its live summary and, for a phase link, the
 * phase; null when the story is gone.
 */
export async function actionLinkStory(app: AppContext, storyId: string, phaseNumber?: number) {
  const story = await app.db
    .selectFrom('stories as s')
    .innerJoin('brands as b', 'b.id', 's.brand_id')
    .innerJoin('advisories as a', (j) =>
      j.onRef('a.story_id', '=', 's.id').on('a.kind', '=', 'live'),
    )
    .select([
      's.title',
      's.severity',
      's.assignee_user_id',
      'b.name as brand',
      'a.id as advisory_id',
      'a.executive_summary',
    ])
    .where('s.id', '=', storyId)
    .executeTakeFirst();
  if (!story) return null;
  const phase =
    phaseNumber === undefined
      ? undefined
      : await app.db
          .selectFrom('phases')
          .select(['number', 'title', 'actions', 'status', 'assignee_user_id'])
          .where('advisory_id', '=', story.advisory_id)
          .where('number', '=', phaseNumber)
          .executeTakeFirst();
  return {
    title: story.title,
    severity: story.severity,
    brand: story.brand,
    assigneeUserId: story.assignee_user_id,
    summary: decode('advisories.executive_summary', story.executive_summary).map((i) => i.text),
    phase: phase && { ...phase, actions: decode('phases.actions', phase.actions) },
  };
}
