import type { MatchPolicy } from '../pipeline/brand-matcher.js';
import type { StoryReason } from '../pipeline/builtin-advisor.js';

/** A changed field's value in a proposal's diff: a text, a phase's actions, or null. */
export type DiffValue = string | string[] | null;

/**
 * The columns that hold JSON, and what each holds. They are encoded and decoded here and
 * nowhere else, so a column's shape is stated once and writing or reading another shape
 * is a type error. (Job payloads are checked by their kind's schema in jobs/kinds.ts; the
 * OAuth store keeps oidc-provider's payloads as they come.)
 */
export interface JsonColumns {
  'brands.aliases': string[];
  'brands.match_policy': MatchPolicy;
  'stories.topics': string[];
  'stories.reasons': StoryReason[];
  'advisories.executive_summary': { text: string; cites: string[] }[];
  'advisories.summary_basis': string[];
  'advisories.diff': { path: string; before: DiffValue; after: DiffValue; why?: string }[];
  'phases.actions': string[];
  'api_keys.scope': string[];
  'audit_log.details': Record<string, unknown>;
  'webhook_endpoints.event_types': string[];
  'user_tokens.data': { account?: string };
  'brand_connectors.targets': string[];
  'stream_posts.links': string[];
  'stream_posts.brand_ids': string[];
  'quiet_mentions.links': string[];
}

export type JsonColumn = keyof JsonColumns;

export const encode = <C extends JsonColumn>(_column: C, value: JsonColumns[C]): string =>
  JSON.stringify(value);

export const decode = <C extends JsonColumn>(_column: C, raw: string): JsonColumns[C] =>
  JSON.parse(raw) as JsonColumns[C];
