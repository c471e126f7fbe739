import { z } from 'zod';
import {
  Assessment,
  EventUri,
  Severity,
  SourceType,
  Spread,
  StoryStatus,
  Timestamp,
  Urgency,
} from './schemas.js';

/** Response shapes shared by several operations (spec section 2, CONTRACT.md). */
export const StoryRow = z.object({
  event_uri: EventUri,
  title: z.string(),
  severity: Severity,
  detected_at: Timestamp,
});

/** A v1_list_stories row: the REST row plus the working state shown in the portal (spec 2.1). */
export const StoryRowWithState = StoryRow.extend({
  status: StoryStatus,
  last_activity_at: Timestamp,
  assessment: Assessment.nullable(),
  spread: Spread,
  assignee: z.string().nullable().describe('email of the assignee, or null'),
  unlocked: z.boolean().describe('whether the full advisory is unlocked'),
});

export const SummaryItem = z.object({
  text: z.string(),
  cites: z.array(z.string()).describe('citation ids of sources'),
});

export const Source = z.object({
  id: z.string(),
  url: z.string(),
  publisher: z.string(),
  title: z.string(),
  published_at: z.string().describe('date, YYYY-MM-DD'),
  type: SourceType,
});

export const Phase = z.object({
  phase: z.number().int().describe('1-based phase number'),
  title: z.string(),
  actions: z.array(z.string()),
  status: z.enum(['open', 'done']),
  assignee: z.string().nullable().describe('email of the assignee'),
  done_by: z.string().nullable(),
  done_at: Timestamp.nullable(),
  comment: z.string().nullable(),
});

export const Advisory = z.object({
  assessment: Assessment,
  urgency: Urgency,
  executive_summary: z.array(SummaryItem),
  schema: z.literal('advisory.v1'),
  sources: z.array(Source),
  summary_basis: z.array(z.string()),
  locked: z.boolean().describe('true when only the free teaser is visible'),
  generator: z
    .string()
    .describe(
      'what wrote the advisory: "builtin" (the built-in generator) or "llm:<model>" (a language model, by its name)',
    ),
  spread: Spread.optional().describe('present when unlocked'),
  phases: z.array(Phase).optional().describe('the response plan; present when unlocked'),
});

/** A changed field's value: a text, a phase's actions, or null where nothing was. */
const DiffValue = z.union([z.string(), z.array(z.string()), z.null()]);

export const AdvisoryPending = z
  .object({
    status: z.enum(['generating', 'ready']),
    requested_at: Timestamp,
    context: z.string(),
    proposal: Advisory.optional(),
    diff: z
      .array(
        z.object({
          path: z.string(),
          before: DiffValue,
          after: DiffValue,
          why: z
            .string()
            .optional()
            .describe('why assessment or urgency moved, in the judgement’s words'),
        }),
      )
      .optional(),
  })
  .describe('present while an updated advisory is generating or waiting to be applied');

export const StoryDetail = z.object({
  event_uri: EventUri,
  title: z.string(),
  severity: Severity,
  detected_at: Timestamp,
  topics: z.array(z.string()),
  status: StoryStatus,
  assignee: z.string().nullable(),
  advisory: Advisory,
  advisory_pending: AdvisoryPending.optional(),
  brand_note: z.object({ text: z.string(), published_at: Timestamp }).nullable(),
});
