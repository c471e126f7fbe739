import type { Actor } from '../policy.js';
import { type Rule, ruleFor } from './operation.js';

/**
 * The bar an operation sets, in words, for the callers of one kind: what a key needs
 * ("the owner or admin role and a full-scope key") is not what a signed-in person needs
 * (no key, and people's bars differ where the specification says so). Appended to the
 * description each door shows, so no description speaks of keys to a person.
 */
export function accessText(rule: Rule, kind: Actor['kind']): string {
  const access = ruleFor(rule, kind);
  if ('never' in access) return '';
  const needs = [
    access.plans && `the ${access.plans.join(' or ')} plan`,
    access.minRole && `the ${access.minRole === 'admin' ? 'owner or admin' : 'owner'} role`,
    kind === 'key' && access.fullScope && 'a full-scope key',
  ].filter((n): n is string => typeof n === 'string');
  if (needs.length === 0) return '';
  const list =
    needs.length === 1 ? needs[0] : `${needs.slice(0, -1).join(', ')} and ${needs.at(-1)}`;
  return `Needs ${list}.`;
}

/** A description with the bar for this kind of caller after it. */
export const describedFor = (text: string, rule: Rule, kind: Actor['kind']) =>
  [text, accessText(rule, kind)].filter(Boolean).join(' ');
