import { signLink } from '../auth/signed-links.js';
import { type AppContext, inTransaction } from '../context.js';
import type { Db } from '../db/database.js';
import { decode } from '../db/json-columns.js';
import { queueEmail } from '../email/outbox.js';
import { AppError, conflict, invalid, notFound } from '../errors.js';
import { actorLabel, type BrandAccess, type StoryAct } from '../policy.js';
import { writeAudit } from './audit.js';
import { passwordLink } from './sign-up.js';
import { lockStory } from './story-lock.js';
import { INVITE_LINK_TTL_MS } from './team.js';
import { resolveTeammate } from './teammates.js';

/** Story statuses (CONTRACT.md); the transitions are in docs/api.md, "Story status". */
export type StoryStatus = 'new' | 'assigned' | 'in_progress' | 'closed';

/** How long the link in an assignment email works. */
const ACTION_LINK_TTL_MS = 14 * 24 * 3_600_000;

interface StoryRow {
  id: string;
  title: string;
  status: StoryStatus;
  unlocked: boolean;
  assignee_user_id: string | null;
  advisory_id: string;
}

/** Locks the story (see lockStory) and reads what assignment needs of it. */
async function loadStory(
  trx: Db,
  brandId: string,
  eventUri: string,
  at: string,
): Promise<StoryRow> {
  await lockStory(trx, { brandId, eventUri }, at);
  const s = await trx
    .selectFrom('stories as s')
    .innerJoin('advisories as a', (j) =>
      j.onRef('a.story_id', '=', 's.id').on('a.kind', '=', 'live'),
    )
    .select([
      's.id',
      's.title',
      's.status',
      's.unlocked_at',
      's.assignee_user_id',
      'a.id as advisory_id',
    ])
    .where('s.brand_id', '=', brandId)
    .where('s.event_uri', '=', eventUri)
    .executeTakeFirst();
  if (!s) throw notFound();
  return { ...s, status: s.status as StoryStatus, unlocked: s.unlocked_at !== null };
}

async function loadPhase(trx: Db, advisoryId: string, phase: number) {
  const p = await trx
    .selectFrom('phases')
    .selectAll()
    .where('advisory_id', '=', advisoryId)
    .where('number', '=', phase)
    .executeTakeFirst();
  if (!p) throw notFound();
  return p;
}

/** Assignment is for the brand's own team: a partner acting on a client brand may not. */
function requireOwnBrand(access: BrandAccess) {
  if (access.relation === 'delegated') throw new AppError('delegated_assignment');
}

function requireUnlocked(story: StoryRow) {
  if (!story.unlocked) throw conflict('advisory is locked');
}

/** Whether every phase of the live advisory is done (a plan always has phases). */
async function allPhasesDone(trx: Db, advisoryId: string): Promise<boolean> {
  const open = await trx
    .selectFrom('phases')
    .select('id')
    .where('advisory_id', '=', advisoryId)
    .where('status', '!=', 'done')
    .limit(1)
    .executeTakeFirst();
  return !open;
}

async function setStatus(trx: Db, storyId: string, status: StoryStatus, at: string, extra = {}) {
  await trx
    .updateTable('stories')
    .set({ status, last_activity_at: at, ...extra })
    .where('id', '=', storyId)
    .execute();
}

/** The email that tells an assignee (or an invited newcomer) what to do, with its link. */
async function notifyAssignee(
  app: AppContext,
  args: {
    accountId: string;
    to: { userId: string; email: string; invited: boolean };
    story: StoryRow;
    phase?: { number: number; title: string; actions: string[] };
    at: string;
  },
) {
  const token = await signLink(
    app,
    'action',
    { s: args.story.id, u: args.to.userId, ...(args.phase && { p: args.phase.number }) },
    ACTION_LINK_TTL_MS,
  );
  const link = `${app.config.baseUrl}/action/${token}`;
  const what = args.phase
    ? `phase ${args.phase.number} of the response plan, "${args.phase.title}"`
    : 'the story';
  // A newcomer can act from the link at once, and joins from this email as from the team
  // page's invitation: choosing a password makes them a member, signed in, and takes them
  // on to what they were given.
  const join = args.to.invited ? await joinLink(app, args.accountId, args.to.userId, token) : null;
  const lines = [
    join
      ? `You have been invited to the ${join.team} team on Stories and assigned ${what}.`
      : `You have been assigned ${what}.`,
    '',
    `Story: ${args.story.title}`,
    ...(args.phase ? ['', 'Actions:', ...args.phase.actions.map((a) => `- ${a}`)] : []),
    '',
    `Open it here (the link works for 14 days): ${link}`,
    ...(join
      ? [
          '',
          `Join the team: choose your password here and you are signed in and taken to it (the link works for 7 days): ${join.link}`,
        ]
      : []),
  ];
  await queueEmail(
    app.db,
    {
      accountId: args.accountId,
      to: args.to.email,
      kind: args.to.invited ? 'invitation' : 'assignment',
      subject: args.phase
        ? `Action for you: ${args.phase.title} (${args.story.title})`.slice(0, 250)
        : `Story assigned to you: ${args.story.title}`.slice(0, 250),
      text: lines.join('\n'),
    },
    args.at,
  );
}

/** The invited newcomer's way in: the team's name and a link to choose a password. */
async function joinLink(app: AppContext, accountId: string, userId: string, actionToken: string) {
  const team = await app.db
    .selectFrom('accounts')
    .select('name')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  const user = await app.db
    .selectFrom('users')
    .select(['id', 'password_hash'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  const link = await passwordLink(app, user, INVITE_LINK_TTL_MS, {
    accountId,
    next: `/action/${actionToken}`,
  });
  return { team: team.name, link };
}

export async function assignStory(
  app: AppContext,
  { actor, access, eventUri, email, invite }: StoryAct & { email: string; invite: boolean },
) {
  requireOwnBrand(access);
  const at = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    const story = await loadStory(trx, access.brand.id, eventUri, at);
    const to = await resolveTeammate(app, {
      account: { id: access.brand.account_id, plan: actor.plan },
      email,
      invite,
      actor: actorLabel(actor),
    });
    const status: StoryStatus = story.status === 'new' ? 'assigned' : story.status;
    await setStatus(trx, story.id, status, at, { assignee_user_id: to.userId });
    await writeAudit(trx, {
      accountId: access.brand.account_id,
      brandId: access.brand.id,
      storyId: story.id,
      actor: actorLabel(actor),
      action: 'story.assigned',
      details: { assignee: to.email, invited: to.invited },
      at,
    });
    await notifyAssignee(app, {
      accountId: access.brand.account_id,
      to,
      story,
      at,
    });
    return { assignee: to.email, invited: to.invited, status };
  });
}

export async function unassignStory(app: AppContext, { actor, access, eventUri }: StoryAct) {
  requireOwnBrand(access);
  const at = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    const story = await loadStory(trx, access.brand.id, eventUri, at);
    if (story.assignee_user_id === null) return { unassigned: false, status: story.status };
    // Any assigned state returns to new (spec 3.1); a closed story stays closed.
    const status: StoryStatus = story.status === 'closed' ? 'closed' : 'new';
    await setStatus(trx, story.id, status, at, { assignee_user_id: null });
    await writeAudit(trx, {
      accountId: access.brand.account_id,
      brandId: access.brand.id,
      storyId: story.id,
      actor: actorLabel(actor),
      action: 'story.unassigned',
      at,
    });
    return { unassigned: true, status };
  });
}

export async function assignPhase(
  app: AppContext,
  {
    actor,
    access,
    eventUri,
    phaseNumber,
    email,
    invite,
  }: StoryAct & { phaseNumber: number; email: string; invite: boolean },
) {
  requireOwnBrand(access);
  const at = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    const story = await loadStory(trx, access.brand.id, eventUri, at);
    requireUnlocked(story);
    const phase = await loadPhase(trx, story.advisory_id, phaseNumber);
    if (phase.status === 'done') throw conflict('phase is already done');
    const to = await resolveTeammate(app, {
      account: { id: access.brand.account_id, plan: actor.plan },
      email,
      invite,
      actor: actorLabel(actor),
    });
    await trx
      .updateTable('phases')
      .set({ assignee_user_id: to.userId })
      .where('id', '=', phase.id)
      .execute();
    const status: StoryStatus = story.status === 'closed' ? 'closed' : 'in_progress';
    await setStatus(trx, story.id, status, at);
    await writeAudit(trx, {
      accountId: access.brand.account_id,
      brandId: access.brand.id,
      storyId: story.id,
      actor: actorLabel(actor),
      action: 'phase.assigned',
      details: { phase: phaseNumber, assignee: to.email, invited: to.invited },
      at,
    });
    await notifyAssignee(app, {
      accountId: access.brand.account_id,
      to,
      story,
      phase: {
        number: phase.number,
        title: phase.title,
        actions: decode('phases.actions', phase.actions),
      },
      at,
    });
    return { assignee: to.email, invited: to.invited, status };
  });
}

export async function unassignPhase(
  app: AppContext,
  { actor, access, eventUri, phaseNumber }: StoryAct & { phaseNumber: number },
) {
  requireOwnBrand(access);
  const at = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    const story = await loadStory(trx, access.brand.id, eventUri, at);
    const phase = await loadPhase(trx, story.advisory_id, phaseNumber);
    if (phase.assignee_user_id === null) return { unassigned: false, status: story.status };
    // Only the assignee is cleared: a done phase stays done.
    await trx
      .updateTable('phases')
      .set({ assignee_user_id: null })
      .where('id', '=', phase.id)
      .execute();
    await setStatus(trx, story.id, story.status, at);
    await writeAudit(trx, {
      accountId: access.brand.account_id,
      brandId: access.brand.id,
      storyId: story.id,
      actor: actorLabel(actor),
      action: 'phase.unassigned',
      details: { phase: phaseNumber },
      at,
    });
    return { unassigned: true, status: story.status };
  });
}

/**
 * Marks a phase done, recording who (the key or user) and when; the last open phase
 * closes the story. `onlyUserId` restricts it to the phase's assignee (the MCP user
 * session's validate_action). Marking a done phase again changes nothing.
 */
export async function completePhase(
  app: AppContext,
  {
    actor,
    access,
    eventUri,
    phaseNumber,
    comment,
    onlyUserId,
  }: StoryAct & { phaseNumber: number; comment?: string; onlyUserId?: string },
) {
  const at = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    const story = await loadStory(trx, access.brand.id, eventUri, at);
    requireUnlocked(story);
    const phase = await loadPhase(trx, story.advisory_id, phaseNumber);
    if (onlyUserId && phase.assignee_user_id !== onlyUserId) {
      throw conflict('only the assignee of this phase may mark it done');
    }
    if (phase.status === 'done') {
      return {
        done_by: phase.done_by!,
        done_at: phase.done_at!,
        already_done: true,
        status: story.status,
      };
    }
    const doneBy = actorLabel(actor);
    await trx
      .updateTable('phases')
      .set({ status: 'done', done_by: doneBy, done_at: at, comment: comment ?? null })
      .where('id', '=', phase.id)
      .execute();
    const status: StoryStatus = (await allPhasesDone(trx, story.advisory_id))
      ? 'closed'
      : 'in_progress';
    await setStatus(trx, story.id, status, at);
    const audit = {
      accountId: access.brand.account_id,
      brandId: access.brand.id,
      storyId: story.id,
      actor: doneBy,
      at,
    };
    await writeAudit(trx, {
      ...audit,
      action: 'phase.done',
      details: { phase: phaseNumber, ...(comment !== undefined && { comment }) },
    });
    if (status === 'closed') await writeAudit(trx, { ...audit, action: 'story.closed' });
    return { done_by: doneBy, done_at: at, already_done: false, status };
  });
}

/** How far ahead a due date may be set. */
const DUE_HORIZON_DAYS = 366;

/**
 * Sets the day a phase is due (`YYYY-MM-DD`, UTC), or clears it (null): the brand's own
 * team, on an unlocked advisory, for a phase not done yet; from today to a year ahead.
 */
export async function setPhaseDue(
  app: AppContext,
  {
    actor,
    access,
    eventUri,
    phaseNumber,
    due,
  }: StoryAct & { phaseNumber: number; due: string | null },
) {
  requireOwnBrand(access);
  const now = app.clock.now();
  if (due !== null) {
    const day = /^\d{4}-\d{2}-\d{2}$/.test(due) ? new Date(`${due}T00:00:00Z`) : null;
    if (!day || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== due) {
      throw invalid('due: a date, YYYY-MM-DD');
    }
    // A day of slack: "today" west of UTC can still be yesterday in UTC.
    const today = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
    const last = new Date(now.getTime() + DUE_HORIZON_DAYS * 86_400_000).toISOString().slice(0, 10);
    if (due < today || due > last) throw invalid('due: from today to a year ahead');
  }
  const at = now.toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    const story = await loadStory(trx, access.brand.id, eventUri, at);
    requireUnlocked(story);
    const phase = await loadPhase(trx, story.advisory_id, phaseNumber);
    if (phase.status === 'done') throw conflict('the phase is done');
    await trx.updateTable('phases').set({ due_on: due }).where('id', '=', phase.id).execute();
    await writeAudit(trx, {
      accountId: access.brand.account_id,
      brandId: access.brand.id,
      storyId: story.id,
      actor: actorLabel(actor),
      action: 'phase.due_set',
      details: { phase: phaseNumber, due },
      at,
    });
    return { phase: phaseNumber, due };
  });
}

/** The due days of a story's live plan, by phase number. */
export async function phaseDues(db: Db, brandId: string, eventUri: string) {
  const rows = await db
    .selectFrom('phases as p')
    .innerJoin('advisories as a', (j) =>
      j.onRef('a.id', '=', 'p.advisory_id').on('a.kind', '=', 'live'),
    )
    .innerJoin('stories as s', 's.id', 'a.story_id')
    .select(['p.number', 'p.due_on'])
    .where('s.brand_id', '=', brandId)
    .where('s.event_uri', '=', eventUri)
    .where('p.due_on', 'is not', null)
    .execute();
  return new Map(rows.map((r) => [r.number, r.due_on!]));
}
