import { type Expression, type SelectQueryBuilder, sql } from 'kysely';
import type { z } from 'zod';
import type { Db } from '../db/database.js';
import { decode } from '../db/json-columns.js';
import { jsonRowsOnPostgres } from '../db/json-rows.js';
import { prepared } from '../db/prepared.js';
import type {
  AdvisoriesTable,
  Assessment,
  DB,
  PhasesTable,
  Severity,
  Spread,
  StoryStatus,
  Urgency,
} from '../db/schema.js';
import { notFound } from '../errors.js';
import type { Advisory, AdvisoryPending, Source, StoryDetail } from '../operations/shapes.js';
import type { StoryReason } from '../pipeline/builtin-advisor.js';

type AdvisoryView = z.input<typeof Advisory>;
type AdvisoryRow = Pick<
  AdvisoriesTable,
  | 'id'
  | 'assessment'
  | 'urgency'
  | 'spread'
  | 'schema'
  | 'executive_summary'
  | 'summary_basis'
  | 'generator'
>;

/**
 * The story as a caller may see it. The paywall lives here, once: a locked advisory keeps
 * only the teaser (assessment, urgency, summary text without citations, schema).
 */
export async function loadStoryDetail(
  db: Db,
  brandId: string,
  eventUri: string,
): Promise<z.input<typeof StoryDetail>> {
  const s = await storyWithLiveAdvisory.first(db, { brandId, eventUri });
  if (!s) throw notFound();

  const unlocked = s.unlocked_at !== null;
  const live = { ...s, id: s.advisory_id };
  const detail: z.input<typeof StoryDetail> = {
    event_uri: s.event_uri,
    title: s.title,
    severity: s.severity,
    detected_at: s.detected_at,
    topics: decode('stories.topics', s.topics),
    status: s.status,
    assignee: s.assignee,
    advisory: unlocked ? await fullAdvisory(db, s.id, live, s) : teaser(live),
    brand_note: s.note_text ? { text: s.note_text, published_at: s.note_published_at! } : null,
  };
  if (s.proposal_id) detail.advisory_pending = await loadPending(db, s.proposal_id, s.id, unlocked);
  return detail;
}

/** Everything but the plan and sources in one statement, including whether a proposal waits. */
const storyWithLiveAdvisory = prepared<
  { brandId: string; eventUri: string },
  {
    id: string;
    event_uri: string;
    title: string;
    severity: Severity;
    detected_at: string;
    topics: string;
    status: StoryStatus;
    unlocked_at: string | null;
    assignee: string | null;
    advisory_id: string;
    assessment: Assessment | null;
    urgency: Urgency | null;
    spread: Spread | null;
    schema: string;
    executive_summary: string;
    summary_basis: string;
    generator: string;
    note_text: string | null;
    note_published_at: string | null;
    proposal_id: string | null;
    /** On PostgreSQL, the rows of an unlocked story; otherwise null (read on their own). */
    sources: z.input<typeof Source>[] | null;
    phases: PhaseRow[] | null;
  }
>('story with its live advisory', (db, p) =>
  db
    .selectFrom('stories as s')
    .innerJoin('advisories as a', (j) =>
      j.onRef('a.story_id', '=', 's.id').on('a.kind', '=', sql.lit('live')),
    )
    .leftJoin('advisories as pa', (j) =>
      j.onRef('pa.story_id', '=', 's.id').on('pa.kind', '=', sql.lit('proposal')),
    )
    .leftJoin('brand_notes as n', 'n.story_id', 's.id')
    .leftJoin('users as u', 'u.id', 's.assignee_user_id')
    .select([
      's.id',
      's.event_uri',
      's.title',
      's.severity',
      's.detected_at',
      's.topics',
      's.status',
      's.unlocked_at',
      'u.email as assignee',
      'a.id as advisory_id',
      'a.assessment',
      'a.urgency',
      'a.spread',
      'a.schema',
      'a.executive_summary',
      'a.summary_basis',
      'a.generator',
      'n.text as note_text',
      'n.published_at as note_published_at',
      'pa.id as proposal_id',
    ])
    // The plan and sources of an unlocked story, on PostgreSQL in the same statement: one
    // round trip instead of three (docs/benchmarks.md). A locked story's stay unread.
    .select((eb) => [
      eb
        .case()
        .when('s.unlocked_at', 'is not', null)
        .then(jsonRowsOnPostgres(db, sourcesOf(eb.selectFrom('articles'), eb.ref('s.id'))))
        .end()
        .as('sources'),
      eb
        .case()
        .when('s.unlocked_at', 'is not', null)
        .then(jsonRowsOnPostgres(db, phasesOf(eb.selectFrom('phases as ph'), eb.ref('a.id'))))
        .end()
        .as('phases'),
    ])
    .where('s.brand_id', '=', p('brandId'))
    .where('s.event_uri', '=', p('eventUri')),
);

type PhaseRow = {
  phase: number;
  title: string;
  actions: string;
  status: 'open' | 'done';
  assignee: string | null;
  done_by: string | null;
  done_at: string | null;
  comment: string | null;
};

/** A story's sources, oldest first: read alone for a proposal, or inside the story's statement. */
const sourcesOf = (from: SelectQueryBuilder<DB, 'articles', object>, storyId: Expression<string>) =>
  from
    .select(['source_key as id', 'url', 'publisher', 'title', 'published_at', 'type'])
    .where('story_id', '=', storyId)
    .orderBy('created_at')
    .orderBy('source_key');

/** An advisory's phases, in order, with each assignee's email. */
const phasesOf = (
  from: SelectQueryBuilder<DB & { ph: PhasesTable }, 'ph', object>,
  advisoryId: Expression<string>,
) =>
  from
    .leftJoin('users as u', 'u.id', 'ph.assignee_user_id')
    .select([
      'ph.number as phase',
      'ph.title',
      'ph.actions',
      'ph.status',
      'u.email as assignee',
      'ph.done_by',
      'ph.done_at',
      'ph.comment',
    ])
    .where('ph.advisory_id', '=', advisoryId)
    .orderBy('ph.number');

const sourcesOfStory = prepared<{ storyId: string }, z.input<typeof Source>>(
  'sources of a story',
  (db, p) => sourcesOf(db.selectFrom('articles'), p('storyId')),
);

const phasesOfAdvisory = prepared<{ advisoryId: string }, PhaseRow>(
  'phases of an advisory',
  (db, p) => phasesOf(db.selectFrom('phases as ph'), p('advisoryId')),
);

function teaser(a: AdvisoryRow): AdvisoryView {
  const summary = decode('advisories.executive_summary', a.executive_summary);
  return {
    // A live advisory, and a proposal once ready, always has both.
    assessment: a.assessment!,
    urgency: a.urgency!,
    executive_summary: summary.map((i) => ({ text: i.text, cites: [] })),
    schema: a.schema as 'advisory.v1',
    sources: [],
    summary_basis: [],
    locked: true,
    generator: a.generator,
  };
}

async function fullAdvisory(
  db: Db,
  storyId: string,
  a: AdvisoryRow,
  read?: { sources: z.input<typeof Source>[] | null; phases: PhaseRow[] | null },
): Promise<AdvisoryView> {
  const sources = read?.sources ?? (await sourcesOfStory.all(db, { storyId }));
  const phases = read?.phases ?? (await phasesOfAdvisory.all(db, { advisoryId: a.id }));
  return {
    assessment: a.assessment!,
    urgency: a.urgency!,
    executive_summary: decode('advisories.executive_summary', a.executive_summary),
    schema: a.schema as 'advisory.v1',
    sources: sources as never,
    summary_basis: decode('advisories.summary_basis', a.summary_basis),
    locked: false,
    generator: a.generator,
    spread: a.spread ?? undefined,
    phases: phases.map((p) => ({
      ...p,
      actions: decode('phases.actions', p.actions),
    })),
  };
}

async function loadPending(
  db: Db,
  proposalId: string,
  storyId: string,
  unlocked: boolean,
): Promise<z.input<typeof AdvisoryPending>> {
  const p = await db
    .selectFrom('advisories')
    .selectAll()
    .where('id', '=', proposalId)
    .executeTakeFirstOrThrow();
  const pending: z.input<typeof AdvisoryPending> = {
    status: p.status as 'generating' | 'ready',
    requested_at: p.requested_at ?? p.created_at,
    context: p.context ?? '',
  };
  if (p.status === 'ready') {
    pending.proposal = unlocked ? await fullAdvisory(db, storyId, p) : teaser(p);
    pending.diff = p.diff ? decode('advisories.diff', p.diff) : [];
  }
  return pending;
}

/** What the pipeline told of a source: its language, how it speaks of the brand. */
export interface SourceNote {
  language: string | null;
  sentiment: number | null;
  /** The page stated no date: its `published_at` is the day it was read. */
  undated: boolean;
  /** Who wrote a post read as it is; null for a page. */
  author: string | null;
}

/**
 * The language, sentiment and author of each source of a story, by source id, for the
 * pages that show them: the API's source objects are fixed by the specification and carry
 * none of them.
 * The caller has checked access to the story.
 */
export async function sourceNotes(db: Db, eventUri: string): Promise<Map<string, SourceNote>> {
  const rows = await db
    .selectFrom('articles as a')
    .innerJoin('stories as s', 's.id', 'a.story_id')
    .select(['a.source_key', 'a.language', 'a.sentiment', 'a.undated', 'a.author'])
    .where('s.event_uri', '=', eventUri)
    .execute();
  return new Map(
    rows.map((r) => [
      r.source_key,
      {
        language: r.language,
        sentiment: r.sentiment,
        undated: r.undated === 1,
        author: r.author,
      },
    ]),
  );
}

/** Why the story scored as it did (docs/pipeline.md, "Topics and severity"), for its page. */
export async function storyReasons(db: Db, eventUri: string): Promise<StoryReason[]> {
  const row = await db
    .selectFrom('stories')
    .select('reasons')
    .where('event_uri', '=', eventUri)
    .executeTakeFirst();
  return row ? decode('stories.reasons', row.reasons) : [];
}
