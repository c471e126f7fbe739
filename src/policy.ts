import type { AppContext } from './context.js';
import type { BrandsTable, Plan, Role } from './db/schema.js';
import { AppError, forbidden, notFound } from './errors.js';

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

export const actorLabel = (a: Actor) => (a.kind === 'key' ? `key:${a.keyId}` : `user:${a.userId}`);

const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 };

export const hasRole = (actor: Actor, min: Role) => RANK[actor.role] >= RANK[min];

export const API_PLANS: readonly Plan[] = ['partner', 'agency'];
export const hasApiAccess = (plan: Plan) => API_PLANS.includes(plan);

/** What an operation needs of its caller before its input is even read. */
export type Access = { never: true } | { minRole?: Role; fullScope?: boolean };

export function checkAccess(actor: Actor, access: Access): void {
  if ('never' in access) throw forbidden();
  if (access.minRole && !hasRole(actor, access.minRole)) throw forbidden();
  if (access.fullScope && actor.scope !== null) throw forbidden();
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
  if (actor.scope !== null && !actor.scope.includes(host)) throw forbidden();
  const brand = await app.db
    .selectFrom('brands')
    .select(['id', 'account_id', 'host', 'name', 'verified'])
    .where('host', '=', host)
    .executeTakeFirst();
  if (!brand) throw notFound();
  if (brand.account_id === actor.accountId) return { brand, relation: 'own' };
  const delegation = await app.db
    .selectFrom('delegations')
    .select('id')
    .where('brand_id', '=', brand.id)
    .where('partner_account_id', '=', actor.accountId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (!delegation) throw notFound();
  return { brand, relation: 'delegated' };
}

/** Brand Notes are official statements: only a verified brand, or one a client delegated. */
export function requireNotePublisher(access: BrandAccess): void {
  if (access.relation === 'own' && access.brand.verified !== 1) throw forbidden();
}

/** Assignment names people of the brand's own team, so a partner may not do it. */
export function requireOwnBrand(access: BrandAccess): void {
  if (access.relation !== 'own') throw new AppError('delegated_assignment');
}
