import { z } from 'zod';
import { HOST_PATTERN } from '../domain/brand-host.js';

/**
 * Parameters shared by every operation, each with the description that becomes the
 * OpenAPI text and the MCP tool's parameter documentation.
 */

export const BrandHost = z
  .string()
  .trim()
  .toLowerCase()
  .min(1, 'is required')
  .max(253, 'must be a brand host such as acme.com')
  .regex(HOST_PATTERN, 'must be a brand host such as acme.com')
  .describe('Brand host, e.g. acme.com (as listed by v1_list_brands)');

export const EventUri = z
  .string()
  .min(1, 'is required')
  .max(200, 'must be at most 200 characters')
  .describe('Story id (event_uri) as listed by list_stories');

/** The user-session tools name the brand `brand_id` (spec 4.3). */
export const BrandId = BrandHost.describe('Brand id as list_brands returns it (the brand host)');

/** A story as the user-session tools name it. */
export const StoryArgs = { brand_id: BrandId, event_uri: EventUri };

/**
 * Text limits count characters (code points, as JSON Schema's maxLength does), which
 * zod's own max (UTF-16 units) does not: a refinement checks them, and `meta` states
 * them in the JSON Schemas clients read.
 */
const codePoints = (s: string) => [...s].length;

export const NoteText = z
  .string()
  .refine((s) => s.trim().length > 0 && codePoints(s) <= 600, 'must be 1 to 600 characters')
  .meta({ minLength: 1, maxLength: 600 })
  .describe('Brand Note text, plain text, 1 to 600 characters');

export const Limit = z.coerce
  .number()
  .int('must be an integer')
  .min(1, 'must be 1 to 200')
  .max(200, 'must be 1 to 200')
  .default(50)
  .describe('Rows per page, 1 to 200 (default 50)');

export const Cursor = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe('next_cursor from the previous page');

export const Ok = z.boolean().describe('true when the operation succeeded');

export const Severity = z.enum(['low', 'medium', 'high', 'critical']);
export const StoryStatus = z.enum(['new', 'assigned', 'in_progress', 'closed']);
export const Assessment = z.enum(['informational', 'opportunity', 'watch', 'threat', 'crisis']);
export const Urgency = z.enum(['low', 'medium', 'high', 'immediate']);
export const Spread = z.enum(['contained', 'growing', 'widespread', 'viral']);
export const SourceType = z.enum([
  'news',
  'blog',
  'social',
  'forum',
  'review',
  'press_release',
  'official',
  'other',
]);
export const Role = z.enum(['owner', 'admin', 'member']);
export const Timestamp = z.string().describe('ISO 8601 timestamp in UTC');

export const PhaseNumber = z
  .number('must be an integer')
  .int('must be an integer')
  .min(1, 'must be 1 or more')
  .max(100, 'must be at most 100')
  .describe('Phase number of the response plan, 1-based');

/** The same, read from a query string (DELETE inputs). */
export const PhaseNumberInQuery = z.coerce
  .number('must be an integer')
  .pipe(PhaseNumber)
  .describe('Phase number of the response plan, 1-based');

export const TeammateEmail = z
  .email('must be an email address')
  .max(254, 'must be at most 254 characters')
  .describe("Teammate's email");

export const Invite = z
  .boolean('must be true or false')
  .optional()
  .describe('true invites an unknown email into the team (takes a seat) and assigns them');

export const PhaseComment = z
  .string()
  .refine((s) => codePoints(s) <= 500, 'must be at most 500 characters')
  .meta({ maxLength: 500 })
  .optional()
  .describe('Optional comment, at most 500 characters; kept in the audit trail');

export const ContextText = z
  .string()
  .refine((s) => s.trim().length > 0 && codePoints(s) <= 2000, 'must be 1 to 2000 characters')
  .meta({ minLength: 1, maxLength: 2000 })
  .describe("The brand's authoritative context, at most 2000 characters");

export const HttpsUrl = z
  .url({ protocol: /^https$/, hostname: z.regexes.domain, error: 'must be an HTTPS URL' })
  .max(2000, 'must be at most 2000 characters');

export const InviteToken = z
  .string()
  .min(1, 'is required')
  .max(200, 'must be at most 200 characters')
  .describe('The invite token from create_delegation_invite');
