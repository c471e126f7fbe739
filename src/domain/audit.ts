import type { Insertable, Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import { decode, encode } from '../db/json-columns.js';
import type { DB } from '../db/schema.js';
import { sortableId } from '../ids.js';
import { queueEvent } from '../webhooks/events.js';

export interface AuditEntry {
  accountId: string;
  brandId?: string | null;
  storyId?: string | null;
  actor: string;
  action: string;
  details?: Record<string, unknown>;
  at: string;
}

/** The row an audit entry becomes (bulk loaders insert it themselves). */
export function auditRow(e: AuditEntry): Insertable<DB['audit_log']> {
  return {
    id: sortableId('aud'),
    account_id: e.accountId,
    brand_id: e.brandId ?? null,
    story_id: e.storyId ?? null,
    actor: e.actor,
    action: e.action,
    details: encode('audit_log.details', e.details ?? {}),
    created_at: e.at,
  };
}

/**
 * Call inside the same transaction as the change it records. Actions partners can
 * subscribe to also become webhook deliveries there (src/webhooks/events.ts).
 */
export async function writeAudit(db: Kysely<DB>, e: AuditEntry): Promise<string> {
  const row = auditRow(e);
  await db.insertInto('audit_log').values(row).execute();
  await queueEvent(db, e);
  return row.id;
}

/** A brand's audit trail, newest first, as the operator reads it (`brs audit`). */
export async function listAudit(app: AppContext, brandId: string, limit: number) {
  const rows = await app.db
    .selectFrom('audit_log as l')
    .leftJoin('stories as s', 's.id', 'l.story_id')
    .select(['l.created_at', 'l.actor', 'l.action', 's.event_uri', 'l.details'])
    .where('l.brand_id', '=', brandId)
    .orderBy('l.created_at', 'desc')
    .orderBy('l.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    at: r.created_at,
    actor: r.actor,
    action: r.action,
    event_uri: r.event_uri,
    details: decode('audit_log.details', r.details),
  }));
}

/**
 * The audit trail as the portal shows it, newest first: an account's own entries, or one
 * story's, with the brand and story each names.
 */
export async function listActivity(
  app: AppContext,
  of: { accountId: string } | { storyId: string },
  limit: number,
) {
  let q = app.db
    .selectFrom('audit_log as l')
    .leftJoin('stories as s', 's.id', 'l.story_id')
    .leftJoin('brands as b', 'b.id', 'l.brand_id')
    .select([
      'l.created_at',
      'l.actor',
      'l.action',
      'b.host',
      's.event_uri',
      's.title',
      'l.details',
    ]);
  q =
    'storyId' in of
      ? q.where('l.story_id', '=', of.storyId)
      : q.where('l.account_id', '=', of.accountId);
  const rows = await q
    .orderBy('l.created_at', 'desc')
    .orderBy('l.id', 'desc')
    .limit(limit)
    .execute();
  const names = await actorNames(
    app,
    rows.map((r) => r.actor),
  );
  return rows.map((r) => ({
    ...r,
    actor_name: names.get(r.actor)!,
    details: decode('audit_log.details', r.details),
  }));
}

/**
 * Who did it, as a person reads it: a user by name (or email), a key by its name; labels
 * of other kinds say what they are (actorKind).
 */
export async function actorNames(app: AppContext, actors: string[]): Promise<Map<string, string>> {
  const ids = (kind: string) => [
    ...new Set(actors.filter((a) => a.startsWith(`${kind}:`)).map((a) => a.slice(kind.length + 1))),
  ];
  const users = ids('user');
  const keys = ids('key');
  const names = new Map<string, string>();
  if (users.length > 0) {
    const rows = await app.db
      .selectFrom('users')
      .select(['id', 'name', 'email'])
      .where('id', 'in', users)
      .execute();
    for (const u of rows) names.set(`user:${u.id}`, u.name?.trim() || u.email);
  }
  if (keys.length > 0) {
    const rows = await app.db
      .selectFrom('api_keys')
      .select(['id', 'name'])
      .where('id', 'in', keys)
      .execute();
    for (const k of rows) names.set(`key:${k.id}`, `API key “${k.name}”`);
  }
  for (const a of actors) if (!names.has(a)) names.set(a, actorKind(a));
  return names;
}

/** An actor label without a name to show: what kind of actor it is. */
function actorKind(actor: string): string {
  const kind = actor.split(':')[0];
  if (actor === 'operator') return 'An operator';
  if (actor === 'system') return 'Stories';
  if (kind === 'checkout') return 'A checkout';
  if (kind === 'user') return 'A former teammate';
  if (kind === 'key') return 'A deleted API key';
  return 'Stories';
}
