import { z } from 'zod';
import { completePhase } from '../domain/assignments.js';
import { listRecentStories, readableBrandIds } from '../domain/stories.js';
import { loadStoryDetail } from '../domain/story-view.js';
import { unlockAdvisory } from '../domain/unlock.js';
import { addStoryContext } from '../operations/advisory/add-story-context.js';
import { applyAdvisoryProposal } from '../operations/advisory/apply-advisory-proposal.js';
import { TriggerResult } from '../operations/advisory/trigger-advisory.js';
import { listBrands } from '../operations/brands/list-brands.js';
import type { Hints, OperationContext } from '../operations/operation.js';
import {
  BrandHost,
  ContextText,
  EventUri,
  PhaseComment,
  PhaseNumber,
  Severity,
  StoryStatus,
  TeammateEmail,
} from '../operations/schemas.js';
import { Advisory, StoryDetail, StoryRowWithState } from '../operations/shapes.js';
import {
  createShare,
  ShareAccess,
  ShareListed,
  ShareMode,
} from '../operations/shares/create-share.js';
import { assignPhase } from '../operations/teamwork/assign-phase.js';
import { completePhase as completePhaseOp } from '../operations/teamwork/complete-phase.js';
import { type Access, brandFor } from '../policy.js';
import { jsonSchema, outputSchema, type ToolEntry } from './tool-call.js';

const BrandId = BrandHost.describe('Brand id as list_brands returns it (the brand host)');

/** At most this many stories per list_stories answer, newest first. */
export const USER_LIST_LIMIT = 100;

interface UserTool<I extends z.ZodType, O extends z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  access?: Access;
  hints: Hints & { idempotent: boolean };
  handler: (ctx: OperationContext, input: z.output<I>) => Promise<z.input<O>>;
}

const define = <I extends z.ZodType, O extends z.ZodType>(t: UserTool<I, O>) => t;

/**
 * The user-session tools of spec 4.3: the signed-in user acting within their own
 * permissions. Where one is an operation of the registry under other argument names it
 * calls that operation's handler, so the rules live in one place.
 */
const definitions = [
  define({
    name: 'list_brands',
    title: 'List brands',
    description:
      'The brands (workspaces) your team monitors, and client brands delegated to it. Each brand_id is what the other tools take.',
    input: z.strictObject({}),
    output: z.object({
      brands: z.array(
        z.object({
          brand_id: z.string().describe('the brand host; pass it as brand_id'),
          name: z.string(),
          verified: z.boolean(),
          delegated: z.boolean().describe('a client brand acted on under a delegation'),
        }),
      ),
    }),
    hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    async handler(ctx) {
      const { brands } = await listBrands.handler(ctx, {});
      return {
        brands: brands.map((b) => ({
          brand_id: b.brand,
          name: b.name,
          verified: b.verified,
          delegated: b.delegated,
        })),
      };
    },
  }),
  define({
    name: 'list_stories',
    title: 'List stories',
    description: `Stories newest first, with their working state, across all your brands or one. At most ${USER_LIST_LIMIT}; more=true when older ones exist (narrow with brand_id or status).`,
    input: z.strictObject({
      brand_id: BrandId.optional().describe('Brand id from list_brands; omit for all brands'),
      status: StoryStatus.optional().describe('Only stories in this status'),
      severity: Severity.optional().describe('Only stories of this severity'),
    }),
    output: z.object({
      stories: z.array(StoryRowWithState.extend({ brand_id: z.string() })),
      more: z.boolean().describe('true when older stories were left out'),
    }),
    hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    async handler({ app, actor }, input) {
      const ids = input.brand_id
        ? [(await brandFor(app, actor, input.brand_id)).brand.id]
        : await readableBrandIds(app.db, actor.accountId);
      const { rows, more } = await listRecentStories(
        app.db,
        ids,
        { status: input.status, severity: input.severity },
        USER_LIST_LIMIT,
      );
      return { stories: rows as never, more };
    },
  }),
  define({
    name: 'get_story',
    title: 'Read a story',
    description:
      'The story with its advisory: assessment, urgency, executive summary with citations, sources and the response plan. A locked advisory shows only the free teaser (assessment, severity, urgency, executive summary) with unlocked=false; unlock_advisory unlocks it.',
    input: z.strictObject({ brand_id: BrandId, event_uri: EventUri }),
    output: z.object({
      brand_id: z.string(),
      story: StoryDetail.extend({
        unlocked: z.boolean().describe('false when only the teaser is shown'),
        advisory: z.union([
          Advisory,
          Advisory.pick({ assessment: true, urgency: true, executive_summary: true }),
        ]),
      }),
    }),
    hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    async handler({ app, actor }, input) {
      const { brand } = await brandFor(app, actor, input.brand_id);
      const detail = await loadStoryDetail(app.db, brand.id, input.event_uri);
      const { assessment, urgency, executive_summary, locked } = detail.advisory;
      return {
        brand_id: brand.host,
        story: {
          ...detail,
          unlocked: !locked,
          advisory: locked ? { assessment, urgency, executive_summary } : detail.advisory,
        },
      };
    },
  }),
  define({
    name: 'unlock_advisory',
    title: 'Unlock an advisory',
    description:
      "Unlocks the full advisory with one of the brand's included monthly units. When none is left, nothing is unlocked or charged and checkout_url links to a page where you can buy one (15 EUR) yourself. Never charges.",
    input: z.strictObject({ brand_id: BrandId, event_uri: EventUri }),
    output: TriggerResult,
    hints: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
    async handler({ app, actor }, input) {
      const access = await brandFor(app, actor, input.brand_id);
      return unlockAdvisory(app, actor, access, input.event_uri, { allowMetering: false });
    },
  }),
  define({
    name: 'assign_action',
    title: 'Assign a response action',
    description:
      'Assigns a phase of the response plan to a teammate by email and emails them the action with its context. An unknown email is invited into your team (the seat cap applies). Own brands only; needs an unlocked advisory.',
    input: z.strictObject({
      brand_id: BrandId,
      event_uri: EventUri,
      phase: PhaseNumber,
      assignee: TeammateEmail,
    }),
    output: assignPhase.output,
    hints: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
    handler: (ctx, i) =>
      assignPhase.handler(ctx, {
        brand: i.brand_id,
        event_uri: i.event_uri,
        phase: i.phase,
        assignee: i.assignee,
        invite: true,
      }),
  }),
  define({
    name: 'validate_action',
    title: 'Mark a response action done',
    description:
      'Marks your own assigned phase done; only its assignee may. The optional comment goes to the audit trail. The last open phase closes the story.',
    input: z.strictObject({
      brand_id: BrandId,
      event_uri: EventUri,
      phase: PhaseNumber,
      comment: PhaseComment,
    }),
    output: completePhaseOp.output,
    hints: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
    async handler({ app, actor }, input) {
      const access = await brandFor(app, actor, input.brand_id);
      const onlyUserId = actor.kind === 'user' ? actor.userId : undefined;
      const r = await completePhase(
        app,
        actor,
        access,
        input.event_uri,
        input.phase,
        input.comment,
        {
          onlyUserId,
        },
      );
      return {
        ok: true,
        brand: access.brand.host,
        event_uri: input.event_uri,
        phase: input.phase,
        ...r,
      };
    },
  }),
  define({
    name: 'add_context',
    title: 'Add context to an advisory',
    description:
      "Gives the brand's authoritative context (at most 2000 characters). An updated advisory is proposed as a pending version with a change diff: get_story shows it under advisory_pending once ready. Nothing changes until apply_advisory_update.",
    input: z.strictObject({ brand_id: BrandId, event_uri: EventUri, context: ContextText }),
    output: addStoryContext.output,
    hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
    handler: (ctx, i) =>
      addStoryContext.handler(ctx, {
        brand: i.brand_id,
        event_uri: i.event_uri,
        context: i.context,
      }),
  }),
  define({
    name: 'apply_advisory_update',
    title: 'Apply the advisory update',
    description:
      'Replaces the live advisory with the pending update (see add_context). Phases already assigned or done stay as they are. Owner only.',
    input: z.strictObject({ brand_id: BrandId, event_uri: EventUri }),
    output: applyAdvisoryProposal.output,
    access: { minRole: 'owner' },
    hints: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
    handler: (ctx, i) =>
      applyAdvisoryProposal.handler(ctx, { brand: i.brand_id, event_uri: i.event_uri }),
  }),
  define({
    name: 'create_share',
    title: 'Share a story',
    description:
      'Creates or retunes the share link of a story. Public access is anonymous and allowed up to mode briefing; guests access shows the full advisory to invited guests (managed in the portal). A public share with mode full, or listed on a guests share, is refused.',
    input: z.strictObject({
      brand_id: BrandId,
      event_uri: EventUri,
      access: ShareAccess,
      listed: ShareListed,
      mode: ShareMode,
    }),
    output: createShare.output,
    hints: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
    handler: (ctx, i) =>
      createShare.handler(ctx, {
        brand: i.brand_id,
        event_uri: i.event_uri,
        access: i.access,
        mode: i.mode,
        listed: i.listed,
      }),
  }),
];

export const userTools: readonly ToolEntry[] = definitions.map((t) => ({
  name: t.name,
  title: t.title,
  description: t.description,
  inputSchema: jsonSchema(t.input, 'input'),
  outputSchema: outputSchema(t.output),
  annotations: {
    title: t.title,
    readOnlyHint: t.hints.readOnly,
    destructiveHint: t.hints.destructive,
    idempotentHint: t.hints.idempotent,
    openWorldHint: t.hints.openWorld,
  },
  run: {
    access: t.access ?? {},
    input: t.input,
    handler: t.handler as never,
  },
}));

/** One user-session tool to run, by name: the portal calls the same ones. */
export function userTool(name: string): ToolEntry['run'] {
  const tool = userTools.find((t) => t.name === name);
  if (!tool) throw new Error(`no user tool ${name}`);
  return tool.run;
}
