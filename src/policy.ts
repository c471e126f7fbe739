import { type Expression, type ExpressionBuilder, sql } from 'kysely';
import type { AppContext } from './context.js';
import { prepared } from './db/prepared.js';
import type { BrandsTable, DB, Plan, Role } from './db/schema.js';
import { forbidden, notFound } from './errors.js';

/**
 * Who is calling. A key and a signed-in user carry the same facts, so one policy answers
 * for REST, MCP and the portal alike.
 */
export type Actor =
  | {
      kind: 'key';
      keyId: string;
      accountId: string;
      plan: Plan;
      role: Role;
      /** Brand hosts the key may touch, or null for a full-scope key. */
      scope: readonly string[] | null;
    }
  | {
      kind: 'user';
      userId: string;
      email: string;
      accountId: string;
      plan: Plan;
      role: Role;
      scope: null;
    };

/**
 * The signed-in person calling, for what is a person's own (a profile, connected apps,
 * saved searches, alert rules): a key has none, and is refused with `reason`.
 */
export function signedInPerson(actor: Actor, reason: string) {
  if (actor.kind !== 'user') throw forbidden(reason);
  return actor;
}

export const actorLabel = (a: Actor) => (a.kind === 'key' ? `key:${a.keyId}` : `user:${a.userId}`);

const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 };

export const hasRole = (actor: Actor, min: Role) => RANK[actor.role] >= RANK[min];

export const API_PLANS: readonly Plan[] = ['partner', 'agency'];
export const hasApiAccess = (plan: Plan) => API_PLANS.includes(plan);

/**
 * What an operation needs of its caller before its input is even read: the one rule of
 * that operation, which every door (REST, MCP, portal) applies alike.
 */
export type Access =
  | { never: true }
  | { minRole?: Role; fullScope?: boolean; plans?: readonly Plan[] };

export function checkAccess(actor: Actor, access: Access): void {
  if ('never' in access) {
    throw forbidden('API keys and agents can never do this; it is done by people in the portal');
  }
  if (access.plans && !access.plans.includes(actor.plan)) {
    throw forbidden(`needs the ${access.plans.join(' or ')} plan`);
  }
  if (access.minRole && !hasRole(actor, access.minRole)) {
    throw forbidden(`needs the ${access.minRole === 'admin' ? 'owner or admin' : 'owner'} role`);
  }
  if (access.fullScope && actor.scope !== null) throw forbidden('needs a full-scope key');
}

/** Whether `checkAccess` would let the actor in: pages show a form only to who may use it. */
export function allows(actor: Actor, access: Access): boolean {
  try {
    checkAccess(actor, access);
    return true;
  } catch {
    return false;
  }
}

/** Who acts on which story: what every change to a story starts from. */
export interface StoryAct {
  actor: Actor;
  access: BrandAccess;
  eventUri: string;
}

export interface BrandAccess {
  brand: Pick<BrandsTable, 'id' | 'account_id' | 'host' | 'name' | 'verified'>;
  /** 'own': the caller's account monitors it; 'delegated': a client brand under an active grant. */
  relation: 'own' | 'delegated';
}

/**
 * The brand named by `host`, as this actor may see it. A host outside a scoped key's list
 * is refused without looking it up; an unknown brand and another account's brand give
 * the same `not found`, so existence is never confirmed.
 */
export async function brandFor(app: AppContext, actor: Actor, host: string): Promise<BrandAccess> {
  if (actor.scope !== null && !actor.scope.includes(host)) {
    throw forbidden("the brand is outside this key's scope");
  }
  const ahead = readAhead(app, actor, host);
  const row = ahead
    ? ahead.row
    : await brandByHost.first(app.db, { host, account: actor.accountId });
  if (!row) throw notFound();
  const { delegated, ...brand } = row;
  if (brand.account_id === actor.accountId) return { brand, relation: 'own' };
  // SQLite answers EXISTS with 0/1, PostgreSQL with a boolean.
  if (!delegated) throw notFound();
  return { brand, relation: 'delegated' };
}

type BrandRow = BrandAccess['brand'] & { delegated: unknown };

/** Brands read ahead for a caller, in the statement that authenticated it (see brandReadAhead). */
const readAheads = new WeakMap<Actor, { host: string; row: BrandRow | undefined }>();

/**
 * Keeps the brand `host` as read for this actor's request together with its credential,
 * so that brandFor does not read it again: on PostgreSQL every statement is a round trip
 * (docs/benchmarks.md). `row` is what brandByHost would answer, undefined for no brand.
 */
export function brandReadAhead(actor: Actor, host: string, row: BrandRow | undefined): void {
  readAheads.set(actor, { host, row });
}

/**
 * The brand read ahead for this actor, once, if it is `host`'s. Never inside a transaction,
 * whose reads must see its own snapshot.
 */
function readAhead(app: AppContext, actor: Actor, host: string) {
  const ahead = readAheads.get(actor);
  if (!ahead) return undefined;
  readAheads.delete(actor);
  return ahead.host === host && !app.db.isTransaction ? ahead : undefined;
}

/** The brand and, in the same statement, whether the account holds an active grant on it. */
const brandByHost = prepared<{ host: string; account: string }, BrandRow>(
  'brand by host, with the account’s delegation',
  (db, p) =>
    db
      .selectFrom('brands as b')
      .select(['b.id', 'b.account_id', 'b.host', 'b.name', 'b.verified'])
      .select((eb) => delegatedTo(eb, p('account')).as('delegated'))
      .where('b.host', '=', p('host')),
);

/** Whether `account` holds an active grant on the brand `b` of the query. */
export const delegatedTo = (
  eb: ExpressionBuilder<DB & { b: BrandsTable }, 'b'>,
  account: Expression<string>,
) =>
  eb.exists(
    eb
      .selectFrom('delegations as d')
      .select('d.id')
      .whereRef('d.brand_id', '=', 'b.id')
      .where('d.partner_account_id', '=', account)
      .where('d.status', '=', sql.lit('active')),
  );

/** Brand Notes are official statements: only a verified brand, or one a client delegated. */
export function requireNotePublisher(access: BrandAccess): void {
  if (access.relation === 'own' && access.brand.verified !== 1) {
    throw forbidden('the brand is not verified');
  }
}
