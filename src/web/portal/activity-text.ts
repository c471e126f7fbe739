import { CLOSE_REASON_TEXT, type CloseReason } from '../../domain/story-closing.js';

/** What an audit entry's details may say; every action writes its own few. */
type Details = Record<string, unknown>;

const s = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
/**
 * A webhook URL's host only: the activity is every member's to read, and a URL's path or
 * query often carries the receiver's token.
 */
function hostOf(url: unknown): string {
  try {
    return new URL(s(url)).host;
  } catch {
    return 'an unknown host';
  }
}
const count = (n: unknown, one: string, many: string) => `${s(n)} ${n === 1 ? one : many}`;
const units = (n: unknown) => count(n, 'change', 'changes');

/**
 * Each audit action as the rest of a sentence whose subject is who did it ("Mia assigned
 * phase 2 to ana@acme.com"). An action not listed here reads as its words.
 */
const SENTENCES: Record<string, (d: Details) => string> = {
  'account.created': () => 'created the account',
  'account.brand_kit_set': () => 'saved the brand kit',
  'advisory.unlocked': (d) =>
    d.unit === 'purchase' ? 'unlocked the advisory (paid)' : 'unlocked the advisory',
  'advisory.context_added': (d) => `added context: “${s(d.context)}”`,
  'advisory.proposal_ready': (d) => `prepared a proposed update (${units(d.changes)})`,
  'advisory.applied': () => 'applied the proposed update',
  'advisory.proposal_failed': (d) =>
    `could not prepare the update from the context “${s(d.context)}”: the advisor did not answer`,
  'advisory.dismissed': () => 'dismissed the proposed update',
  'api_key.created': (d) => `created an API key (${s(d.role)})`,
  'api_key.revoked': () => 'revoked an API key',
  'billing.charged': () => 'charged an advisory unit',
  'billing.purchased': () => 'completed the purchase of an advisory unit',
  'billing.refund_due': () => 'marked a payment for refund',
  'billing.subscribed': () => 'subscribed the account',
  'brand.added': () => 'added the brand',
  'brand.deleted': (d) =>
    `deleted the brand ${s(d.host)} with its ${count(d.stories, 'story', 'stories')}`,
  'brand.aliases_set': () => 'changed the brand’s aliases',
  'brand.match_policy_set': () => 'changed how the brand is recognised',
  'brand.verification_sent': () => 'sent a verification link for the brand',
  'brand.verified': () => 'verified the brand',
  'brand.claimed': () => 'claimed the brand from a team that had added it unverified',
  'brand_note.published': () => 'published the Brand Note',
  'brand_note.deleted': () => 'deleted the Brand Note',
  'delegation.granted': () => 'made a partner manage the brand',
  'delegation.dropped': (d) =>
    d.client_account === 'handed_back'
      ? 'dropped the client brand, which went back to the client with a 7-day trial'
      : 'dropped the client brand',
  'delegation.revoked': () => 'stopped a partner acting on the brand',
  'delegation_invite.created': () => 'made an invitation link for a client',
  'delegation_invite.revoked': () => 'revoked an invitation link',
  'member.added': (d) => `added a teammate as ${s(d.role)}`,
  'mentions.spike': (d) =>
    `found ${s(d.mentions)} mentions of ${s(d.brand)} in an hour, against ${s(d.usual)} usually`,
  'member.invited': (d) => `invited ${s(d.email)} to the team`,
  'member.removed': (d) => `removed ${s(d.email)} from the team`,
  'member.invitation_cancelled': (d) => `cancelled the invitation of ${s(d.email)}`,
  'member.invitation_resent': (d) => `sent ${s(d.email)} their invitation again`,
  'member.role_changed': (d) => `changed a teammate’s role from ${s(d.from)} to ${s(d.to)}`,
  'phase.assigned': (d) => `assigned phase ${s(d.phase)} to ${s(d.assignee)}`,
  'phase.unassigned': (d) => `took phase ${s(d.phase)} off its assignee`,
  'phase.due_set': (d) =>
    d.due
      ? `set phase ${s(d.phase)} due on ${s(d.due)}`
      : `cleared the due date of phase ${s(d.phase)}`,
  'phase.done': (d) => `marked phase ${s(d.phase)} done${d.comment ? `: “${s(d.comment)}”` : ''}`,
  'share.guest_added': (d) => `invited ${s(d.email)} to the share`,
  'share.guest_removed': (d) => `removed ${s(d.email)} from the share`,
  'share.created': (d) =>
    `shared the story (${d.access === 'guests' ? 'invited guests' : 'anyone with the link'}, ${s(d.mode)})`,
  'share.retuned': (d) =>
    `changed the share to ${d.access === 'guests' ? 'invited guests' : 'anyone with the link'}, ${s(d.mode)}`,
  'share.stopped': () => 'stopped sharing the story',
  'share.suspended': () => 'stopped the share, as its partner left the brand',
  'share.reenabled': () => 're-enabled the share',
  'source.added': () => 'added a source',
  'source.removed': () => 'removed a source',
  'story.created': () => 'found the story',
  'story.article_added': () => 'added an article to the story',
  'story.assigned': (d) => `assigned the story to ${s(d.assignee)}`,
  'story.unassigned': () => 'took the story off its assignee',
  'story.closed': (d) =>
    d.reason
      ? `closed the story: ${CLOSE_REASON_TEXT[d.reason as CloseReason] ?? s(d.reason)}${d.excluded ? `, and detection now ignores “${s(d.excluded)}”` : ''}`
      : 'closed the story, every phase done',
  'story.reopened': () => 'reopened the story',
  'user.password_changed': () => 'changed their password',
  'webhook.added': (d) => `added a webhook endpoint on ${hostOf(d.url)}`,
  'webhook.paused': (d) => `paused a webhook endpoint on ${hostOf(d.url)}`,
  'webhook.resumed': (d) => `resumed a webhook endpoint on ${hostOf(d.url)}`,
  'webhook.deleted': (d) => `deleted a webhook endpoint on ${hostOf(d.url)}`,
};

/** The entry as a sentence: "<who> <did what>". */
export function activitySentence(who: string, action: string, details: Details): string {
  const rest = SENTENCES[action]?.(details) ?? action.replace(/[._]/g, ' ');
  return `${who} ${rest}.`;
}
