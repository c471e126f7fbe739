import { sql } from 'kysely';
import { type AppContext, inTransaction } from '../context.js';
import type { Db } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import { type DiffValue, decode, encode } from '../db/json-columns.js';
import type { AdvisoriesTable, PhasesTable, StoryStatus } from '../db/schema.js';
import { conflict, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { ADVISORY_PROPOSE } from '../jobs/kinds.js';
import { enqueue } from '../jobs/queue.js';
import { type LivePlan, type ProposalInput, withStartedPhases } from '../pipeline/rethink.js';
import { actorLabel, type BrandAccess, type StoryAct } from '../policy.js';
import { writeAudit } from './audit.js';
import { brandTermsOf } from './brands.js';
import { storySources } from './stories.js';
import { refreshStoryDocument } from './story-documents.js';
import { lockStory } from './story-lock.js';

/**
 * Context and proposals (spec 3.3). Context queues the generation of a pending advisory;
 * the live advisory changes only when a proposal is applied, and then phases where work
 * started (assigned or done) are kept verbatim with their assignees and done state.
 */

const PROPOSAL_PENDING = 'a proposal is already pending; apply or dismiss it first';

/** Locks the story (see lockStory) and reads its live advisory and any proposal. */
async function storyOf(trx: Db, brandId: string, eventUri: string, at: string) {
  await lockStory(trx, { brandId, eventUri }, at);
  const s = await trx
    .selectFrom('stories as s')
    .innerJoin('advisories as a', (j) =>
      j.onRef('a.story_id', '=', 's.id').on('a.kind', '=', sql.lit('live')),
    )
    .leftJoin('advisories as p', (j) =>
      j.onRef('p.story_id', '=', 's.id').on('p.kind', '=', sql.lit('proposal')),
    )
    .select([
      's.id',
      's.status',
      's.unlocked_at',
      'a.id as live_id',
      'p.id as proposal_id',
      'p.status as proposal_status',
    ])
    .where('s.brand_id', '=', brandId)
    .where('s.event_uri', '=', eventUri)
    .executeTakeFirst();
  if (!s) throw notFound();
  return s;
}

export async function addContext(
  app: AppContext,
  { actor, access, eventUri, context }: StoryAct & { context: string },
) {
  const at = app.clock.now().toISOString();
  try {
    return await inTransaction(app, async (app) => {
      const trx = app.db;
      const s = await storyOf(trx, access.brand.id, eventUri, at);
      if (s.unlocked_at === null) throw conflict('advisory is locked');
      if (s.proposal_id) throw conflict(PROPOSAL_PENDING);
      // Dismissed and superseded versions keep their numbers, so the next one comes after
      // every version the story ever had, not after the live one.
      const { latest } = await trx
        .selectFrom('advisories')
        .select((eb) => eb.fn.max('version').as('latest'))
        .where('story_id', '=', s.id)
        .executeTakeFirstOrThrow();
      const id = newId('adv');
      await trx
        .insertInto('advisories')
        .values({
          id,
          story_id: s.id,
          version: Number(latest) + 1,
          kind: 'proposal',
          status: 'generating',
          assessment: null,
          urgency: null,
          spread: null,
          schema: 'advisory.v1',
          executive_summary: '[]',
          summary_basis: '[]',
          diff: null,
          context,
          generator: 'builtin',
          requested_at: at,
          created_at: at,
          applied_at: null,
        })
        .execute();
      await enqueue(trx, ADVISORY_PROPOSE, { advisory: id }, { now: at });
      await trx
        .updateTable('stories')
        .set({ last_activity_at: at })
        .where('id', '=', s.id)
        .execute();
      await writeAudit(trx, {
        accountId: access.brand.account_id,
        brandId: access.brand.id,
        storyId: s.id,
        actor: actorLabel(actor),
        action: 'advisory.context_added',
        details: { context },
        at,
      });
      return { status: 'generating' as const, requested_at: at, context };
    });
  } catch (e) {
    // Two contexts at once: the unique index lets one proposal in; the other is told why.
    throw isUniqueViolation(e) ? conflict(PROPOSAL_PENDING) : e;
  }
}

type PhaseRow = PhasesTable;
type AdvisoryFields = Pick<
  AdvisoriesTable,
  'assessment' | 'urgency' | 'spread' | 'executive_summary' | 'summary_basis'
>;

/** The changes from the live advisory to the proposal, field by field. */
export function diffAdvisories(
  live: AdvisoryFields & { phases: Pick<PhaseRow, 'title' | 'actions'>[] },
  next: AdvisoryFields & { phases: Pick<PhaseRow, 'title' | 'actions'>[] },
  why?: string | null,
): { path: string; before: DiffValue; after: DiffValue; why?: string }[] {
  const out: { path: string; before: DiffValue; after: DiffValue; why?: string }[] = [];
  for (const f of ['assessment', 'urgency', 'spread'] as const) {
    if (live[f] === next[f]) continue;
    // What moved the judgement: the team's context (assessment, urgency), the coverage (spread).
    const because = f === 'spread' ? null : why;
    out.push({ path: f, before: live[f], after: next[f], ...(because && { why: because }) });
  }
  const a = decode('advisories.executive_summary', live.executive_summary);
  const b = decode('advisories.executive_summary', next.executive_summary);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i]?.text !== b[i]?.text) {
      out.push({
        path: `executive_summary[${i}]`,
        before: a[i]?.text ?? null,
        after: b[i]?.text ?? null,
      });
    }
  }
  for (let i = 0; i < Math.max(live.phases.length, next.phases.length); i++) {
    const x = live.phases[i];
    const y = next.phases[i];
    if (x?.title !== y?.title) {
      out.push({
        path: `phases[${i + 1}].title`,
        before: x?.title ?? null,
        after: y?.title ?? null,
      });
    }
    if (x && y && x.actions !== y.actions) {
      out.push({
        path: `phases[${i + 1}].actions`,
        before: decode('phases.actions', x.actions),
        after: decode('phases.actions', y.actions),
      });
    }
  }
  return out;
}

/**
 * The `advisory.propose` job: the advisory thought again from the story's sources and the
 * brand's context, by the same advisor as new stories (a model when one is configured,
 * else the built-in generator; docs/pipeline.md, "Proposals"), then the proposal's
 * content, phases and diff. The advisor runs outside any transaction (a model may take
 * a minute); the write then checks the proposal is still waiting and keeps the phases
 * started meanwhile verbatim. Running it again, or after a dismissal, changes nothing.
 */
export async function generateProposalJob(app: AppContext, payload: { advisory: string }) {
  const target = await waitingProposal(app.db, payload.advisory);
  if (!target) return { skipped: true };
  return prepareProposal(app, target);
}

/** The advisor's proposal written beside the live advisory (see generateProposalJob). */
async function prepareProposal(app: AppContext, target: AdvisoriesTable) {
  const input = await proposalInput(app.db, target);
  const generated = await app.advisor.propose(input);
  return inTransaction(app, async (app) => {
    const trx = app.db;
    await lockStory(trx, { id: target.story_id }, app.clock.now().toISOString());
    const p = await waitingProposal(trx, target.id);
    if (!p) return { skipped: true };
    const live = await liveAdvisory(trx, p.story_id);
    // Phases may have been assigned or done while the advisor thought.
    const g = withStartedPhases(generated.advisory, livePlan(live)).phases;
    const fields = {
      assessment: generated.advisory.assessment,
      urgency: generated.advisory.urgency,
      spread: generated.advisory.spread,
      executive_summary: encode(
        'advisories.executive_summary',
        generated.advisory.executiveSummary,
      ),
      summary_basis: encode('advisories.summary_basis', generated.advisory.summaryBasis),
    };
    const phases = g.map((ph, i) => ({
      id: newId('pha'),
      advisory_id: p.id,
      number: i + 1,
      title: ph.title,
      actions: encode('phases.actions', ph.actions),
      status: 'open' as const,
      assignee_user_id: null,
      done_by: null,
      done_at: null,
      comment: null,
    }));
    const diff = diffAdvisories(
      { ...live.advisory, phases: live.phases },
      { ...fields, phases },
      generated.advisory.contextEffect,
    );
    await trx
      .updateTable('advisories')
      .set({
        ...fields,
        status: 'ready',
        diff: encode('advisories.diff', diff),
        generator: generated.generator,
      })
      .where('id', '=', p.id)
      .execute();
    await trx.insertInto('phases').values(phases).execute();
    await auditProposal(app, p.story_id, 'advisory.proposal_ready', {
      changes: diff.length,
      generator: generated.generator,
    });
    return { ready: true, changes: diff.length };
  });
}

/**
 * The `advisory.propose` job's give-up (queue.ts `onGiveUp`): a proposal the advisor could
 * not prepare after every attempt, or whose last attempt's process died, leaves the story
 * (kept as dismissed, so context can be added again) and the audit trail says why, which
 * the story page shows in its place.
 */
export async function giveUpProposalJob(
  app: AppContext,
  payload: { advisory: string },
  reason: string,
) {
  const id = payload.advisory;
  await inTransaction(app, async (app) => {
    const trx = app.db;
    const target = await waitingProposal(trx, id);
    if (!target) return;
    await lockStory(trx, { id: target.story_id }, app.clock.now().toISOString());
    const p = await waitingProposal(trx, id);
    if (!p) return;
    await trx.updateTable('advisories').set({ kind: 'dismissed' }).where('id', '=', p.id).execute();
    await auditProposal(app, p.story_id, 'advisory.proposal_failed', {
      context: p.context,
      reason: reason.slice(0, 200),
    });
  });
}

/** What the background advisor did to a story's proposal, in its audit trail. */
async function auditProposal(
  app: AppContext,
  storyId: string,
  action: string,
  details: Record<string, unknown>,
) {
  const story = await app.db
    .selectFrom('stories as s')
    .innerJoin('brands as b', 'b.id', 's.brand_id')
    .select(['s.brand_id', 'b.account_id'])
    .where('s.id', '=', storyId)
    .executeTakeFirstOrThrow();
  await writeAudit(app.db, {
    accountId: story.account_id,
    brandId: story.brand_id,
    storyId,
    actor: 'system',
    action,
    details,
    at: app.clock.now().toISOString(),
  });
}

const waitingProposal = (db: Db, id: string) =>
  db
    .selectFrom('advisories')
    .selectAll()
    .where('id', '=', id)
    .where('kind', '=', 'proposal')
    .where('status', '=', 'generating')
    .executeTakeFirst();

async function liveAdvisory(db: Db, storyId: string) {
  const advisory = await db
    .selectFrom('advisories')
    .selectAll()
    .where('story_id', '=', storyId)
    .where('kind', '=', 'live')
    .executeTakeFirstOrThrow();
  const phases = await db
    .selectFrom('phases')
    .selectAll()
    .where('advisory_id', '=', advisory.id)
    .orderBy('number')
    .execute();
  return { advisory, phases };
}

/** The live plan as the advisor reads it: each phase, and whether work on it started. */
function livePlan(live: Awaited<ReturnType<typeof liveAdvisory>>): LivePlan {
  return {
    assessment: live.advisory.assessment,
    urgency: live.advisory.urgency,
    phases: live.phases.map((ph) => ({
      number: ph.number,
      title: ph.title,
      actions: decode('phases.actions', ph.actions),
      started: ph.assignee_user_id !== null || ph.status === 'done',
    })),
  };
}

/**
 * What the advisor is given: the story's sources, its brand, the live plan, the context,
 * and the contexts of the proposals applied before (they accumulate; a dismissed one was
 * turned down and counts no more).
 */
async function proposalInput(
  db: Db,
  p: { story_id: string; context: string | null },
): Promise<ProposalInput> {
  const earlier = await db
    .selectFrom('advisories')
    .select('context')
    .where('story_id', '=', p.story_id)
    .where('kind', 'in', ['live', 'superseded'])
    .where('context', 'is not', null)
    .orderBy('applied_at')
    .orderBy('id')
    .execute();
  const brand = await db
    .selectFrom('stories as s')
    .innerJoin('brands as b', 'b.id', 's.brand_id')
    .select(['b.host', 'b.name', 'b.aliases', 'b.match_policy'])
    .where('s.id', '=', p.story_id)
    .executeTakeFirstOrThrow();
  return {
    sources: await storySources(db, p.story_id),
    context: p.context ?? '',
    earlier: earlier.map((e) => e.context!),
    brand: brandTermsOf(brand),
    live: livePlan(await liveAdvisory(db, p.story_id)),
  };
}

async function pendingProposal(trx: Db, access: BrandAccess, eventUri: string, at: string) {
  const s = await storyOf(trx, access.brand.id, eventUri, at);
  if (!s.proposal_id) throw conflict('no pending proposal');
  return s;
}

/**
 * Replaces the live advisory with the ready proposal. Each phase of the live plan where
 * work started (assigned or done) stays verbatim, with its assignee and done state, at
 * its number; started phases beyond the new plan's length follow it, renumbered in order.
 */
export async function applyProposal(app: AppContext, { actor, access, eventUri }: StoryAct) {
  const at = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    const s = await pendingProposal(trx, access, eventUri, at);
    if (s.proposal_status !== 'ready') throw conflict('proposal is still generating');
    const proposalId = s.proposal_id!;
    const [livePhases, newPhases] = await Promise.all(
      [s.live_id, proposalId].map((id) =>
        trx
          .selectFrom('phases')
          .selectAll()
          .where('advisory_id', '=', id)
          .orderBy('number')
          .execute(),
      ),
    );
    const started = livePhases!.filter(
      (ph) => ph.assignee_user_id !== null || ph.status === 'done',
    );
    let next = newPhases!.length;
    for (const ph of started) {
      const replaced = newPhases!.find((n) => n.number === ph.number);
      if (replaced) await trx.deleteFrom('phases').where('id', '=', replaced.id).execute();
      await trx
        .updateTable('phases')
        .set({ advisory_id: proposalId, number: replaced ? ph.number : ++next })
        .where('id', '=', ph.id)
        .execute();
    }
    await trx
      .updateTable('advisories')
      .set({ kind: 'superseded' })
      .where('id', '=', s.live_id)
      .execute();
    await trx
      .updateTable('advisories')
      .set({ kind: 'live', applied_at: at })
      .where('id', '=', proposalId)
      .execute();
    const open = await trx
      .selectFrom('phases')
      .select('id')
      .where('advisory_id', '=', proposalId)
      .where('status', '!=', 'done')
      .limit(1)
      .executeTakeFirst();
    // New open work reopens a closed story; a plan with nothing left to do closes it.
    const status: StoryStatus = !open ? 'closed' : s.status === 'closed' ? 'in_progress' : s.status;
    await trx
      .updateTable('stories')
      .set({ status, last_activity_at: at })
      .where('id', '=', s.id)
      .execute();
    await refreshStoryDocument(trx, s.id, at);
    await writeAudit(trx, {
      accountId: access.brand.account_id,
      brandId: access.brand.id,
      storyId: s.id,
      actor: actorLabel(actor),
      action: 'advisory.applied',
      details: { kept_phases: started.map((ph) => ph.number) },
      at,
    });
    return { status };
  });
}

export async function dismissProposal(app: AppContext, { actor, access, eventUri }: StoryAct) {
  const at = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    const s = await pendingProposal(trx, access, eventUri, at);
    await trx
      .updateTable('advisories')
      .set({ kind: 'dismissed' })
      .where('id', '=', s.proposal_id!)
      .execute();
    await writeAudit(trx, {
      accountId: access.brand.account_id,
      brandId: access.brand.id,
      storyId: s.id,
      actor: actorLabel(actor),
      action: 'advisory.dismissed',
      at,
    });
    return { dismissed: true };
  });
}

/**
 * Which of these stories (each by its brand host and event_uri, already shown to the
 * reader) has a proposal waiting, and in what state: for the portal's list, which the
 * spec's list answer does not carry. Answers a lookup by host and event_uri.
 */
export async function proposalStates(
  db: Db,
  stories: readonly { host: string; eventUri: string }[],
): Promise<(host: string, eventUri: string) => 'generating' | 'ready' | undefined> {
  const key = (host: string, eventUri: string) => `${host} ${eventUri}`;
  const states = new Map<string, 'generating' | 'ready'>();
  const of = (host: string, eventUri: string) => states.get(key(host, eventUri));
  if (stories.length === 0) return of;
  const rows = await db
    .selectFrom('stories as s')
    .innerJoin('brands as b', 'b.id', 's.brand_id')
    .innerJoin('advisories as pa', (j) =>
      j.onRef('pa.story_id', '=', 's.id').on('pa.kind', '=', sql.lit('proposal')),
    )
    .select(['b.host', 's.event_uri', 'pa.status'])
    .where('s.event_uri', 'in', [...new Set(stories.map((s) => s.eventUri))])
    .where('b.host', 'in', [...new Set(stories.map((s) => s.host))])
    .execute();
  const shown = new Set(stories.map((s) => key(s.host, s.eventUri)));
  for (const r of rows) {
    if (shown.has(key(r.host, r.event_uri))) states.set(key(r.host, r.event_uri), r.status);
  }
  return of;
}
