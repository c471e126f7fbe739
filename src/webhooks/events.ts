import type { Db } from '../db/database.js';
import { decode } from '../db/json-columns.js';
import type { AuditEntry } from '../domain/audit.js';
import { newId } from '../ids.js';
import { WEBHOOK_DELIVER } from '../jobs/kinds.js';
import { enqueue } from '../jobs/queue.js';

/** The event types partners can subscribe to (docs/api.md, "Webhooks"). */
export const EVENT_TYPES = [
  'story.created',
  'story.updated',
  'advisory.unlocked',
  'proposal.ready',
  'proposal.applied',
  'phase.done',
  'story.closed',
  'brand_note.published',
  'brand_note.deleted',
  'delegation.activated',
  'delegation.revoked',
  'delegation.dropped',
  'alert.triggered',
  'mentions.spike',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Which audited actions are events. The audit trail already records each of these, in
 * the transaction of the change, so an event exists exactly when its change does.
 */
const EVENT_OF_ACTION: Record<string, EventType> = {
  'story.created': 'story.created',
  'story.article_added': 'story.updated',
  'story.assigned': 'story.updated',
  'story.unassigned': 'story.updated',
  'phase.assigned': 'story.updated',
  'phase.unassigned': 'story.updated',
  'advisory.unlocked': 'advisory.unlocked',
  'advisory.proposal_ready': 'proposal.ready',
  'advisory.applied': 'proposal.applied',
  'phase.done': 'phase.done',
  'story.closed': 'story.closed',
  'story.reopened': 'story.updated',
  'brand_note.published': 'brand_note.published',
  'brand_note.deleted': 'brand_note.deleted',
  'delegation.granted': 'delegation.activated',
  'delegation.revoked': 'delegation.revoked',
  'delegation.dropped': 'delegation.dropped',
  'mentions.spike': 'mentions.spike',
};

/**
 * The accounts a brand's events are routed to: its own, and every partner with an active
 * delegation of it. Read when an event is queued, and again before each delivery attempt
 * (deliver.ts), so a partner whose delegation ended gets none of what was still waiting.
 */
export async function brandAudience(
  db: Db,
  brand: { id: string; account_id: string },
): Promise<Set<string>> {
  const partners = await db
    .selectFrom('delegations')
    .select('partner_account_id')
    .where('brand_id', '=', brand.id)
    .where('status', '=', 'active')
    .execute();
  return new Set([brand.account_id, ...partners.map((p) => p.partner_account_id)]);
}

/** The first attempt of a delivery is a job of its own: one per endpoint. */
export const DELIVER_JOB = 'webhook.deliver';

/**
 * Turns an audited action into webhook deliveries, inside the caller's transaction: one
 * delivery (and its first job) per subscribed, enabled endpoint of the accounts the event
 * is routed to. Routing is read here, in the same transaction: the brand's own account,
 * and every partner with an **active** delegation of it, so deliveries for a dropped
 * brand stop with the drop itself. A delegation event reaches its two parties only.
 */
export async function queueEvent(db: Db, e: AuditEntry): Promise<void> {
  const type = EVENT_OF_ACTION[e.action];
  if (!type || !e.brandId) return;
  const brand = await db
    .selectFrom('brands as b')
    .leftJoin('stories as s', (j) => j.on('s.id', '=', e.storyId ?? ''))
    .select(['b.host', 'b.account_id', 's.event_uri'])
    .where('b.id', '=', e.brandId)
    .executeTakeFirst();
  if (!brand) return;
  let accounts: Set<string>;
  if (type.startsWith('delegation.')) {
    // Only its two parties: other partners of the brand learn nothing of it.
    accounts = new Set([brand.account_id]);
    for (const party of [e.details?.partner, e.details?.client, e.accountId]) {
      if (typeof party === 'string') accounts.add(party);
    }
  } else {
    accounts = await brandAudience(db, { id: e.brandId, account_id: brand.account_id });
  }
  await queueDeliveries(
    db,
    accounts,
    type,
    {
      brand: brand.host,
      ...(brand.event_uri && { event_uri: brand.event_uri }),
      ...e.details,
    },
    e.at,
  );
}

/**
 * One delivery (and its first job) per subscribed, enabled endpoint of these accounts,
 * inside the caller's transaction. An alert goes this way to its owner's account only.
 */
export async function queueDeliveries(
  db: Db,
  accounts: Set<string>,
  type: EventType,
  data: Record<string, unknown>,
  at: string,
): Promise<void> {
  const endpoints = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'event_types'])
    .where('account_id', 'in', [...accounts])
    .where('disabled_at', 'is', null)
    .execute();
  const subscribed = endpoints.filter((ep) => {
    const types = decode('webhook_endpoints.event_types', ep.event_types);
    return types.includes(type) || types.includes('*');
  });
  if (subscribed.length === 0) return;
  const eventId = newId('msg');
  const payload = JSON.stringify({ type, timestamp: at, data });
  for (const ep of subscribed) {
    const id = newId('dlv');
    await db
      .insertInto('webhook_deliveries')
      .values({
        id,
        endpoint_id: ep.id,
        event_id: eventId,
        event_type: type,
        payload,
        status: 'pending',
        attempts: 0,
        last_status_code: null,
        last_error: null,
        next_attempt_at: at,
        created_at: at,
        delivered_at: null,
      })
      .execute();
    await enqueue(db, WEBHOOK_DELIVER, { delivery: id }, { now: at });
  }
}
