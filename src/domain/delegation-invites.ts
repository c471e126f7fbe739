import { createHmac, hash } from 'node:crypto';
import { signingSecret } from '../auth/signed-links.js';
import { type AppContext, inTransaction } from '../context.js';
import type { Db } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import type { DelegationInvitesTable } from '../db/schema.js';
import { conflict, invalid, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { writeAudit } from './audit.js';
import { isMailProviderDomain, requireBrandHost } from './brand-host.js';

export type InviteStatus = 'pending' | 'used' | 'declined' | 'expired' | 'revoked';

/**
 * An invite's token is derived from its id with the service's secret, so "the same
 * token while pending" needs no stored secret: only its SHA-256 is kept, for lookup.
 */
export async function tokenOf(app: AppContext, inviteId: string): Promise<string> {
  const mac = createHmac('sha256', await signingSecret(app))
    .update(`delegation-invite:${inviteId}`)
    .digest('base64url');
  return `inv_${mac}`;
}

const hashToken = (token: string) => hash('sha256', token, 'base64url');

export const onboardingUrl = (app: AppContext, token: string) =>
  `${app.config.baseUrl}/onboard/${token}`;

export interface InviteAnswer {
  ok: true;
  brand: string;
  token: string;
  onboarding_url: string;
  status: 'pending';
  return_url: string;
  expires_at: string;
}

/**
 * A partner invites a client to delegate one brand. While a pending invite for the same
 * brand is valid the same token comes back (its return_url updated to the latest).
 */
export async function createInvite(
  app: AppContext,
  {
    partnerId,
    host,
    returnUrl,
    actor,
  }: { partnerId: string; host: string; returnUrl: string; actor: string },
): Promise<InviteAnswer> {
  // The invite becomes a brand when the client accepts: refuse what could never be one.
  requireBrandHost(host, 'brand');
  // Onboarding could never prove it (an address there proves nothing about the provider).
  if (isMailProviderDomain(host)) {
    throw invalid(`brand: ${host} is a mailbox provider; its owner verifies with us directly`);
  }
  const now = app.clock.now();
  const at = now.toISOString();
  const brand = await app.db
    .selectFrom('brands')
    .select(['id', 'account_id'])
    .where('host', '=', host)
    .executeTakeFirst();
  if (brand?.account_id === partnerId) throw invalid('brand: is one of your own brands');
  if (brand) {
    const active = await app.db
      .selectFrom('delegations')
      .select('id')
      .where('brand_id', '=', brand.id)
      .where('partner_account_id', '=', partnerId)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (active) throw conflict('delegation: already active for this brand');
  }
  const attempt = () =>
    inTransaction(app, async (app) => {
      const trx = app.db;
      await expirePending(trx, at, { partnerId, host });
      const pending = await trx
        .selectFrom('delegation_invites')
        .selectAll()
        .where('partner_account_id', '=', partnerId)
        .where('brand_host', '=', host)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      if (pending) {
        await trx
          .updateTable('delegation_invites')
          .set({ return_url: returnUrl, updated_at: at })
          .where('id', '=', pending.id)
          .execute();
        return { ...pending, return_url: returnUrl };
      }
      const id = newId('inv');
      const row: DelegationInvitesTable = {
        id,
        partner_account_id: partnerId,
        brand_host: host,
        return_url: returnUrl,
        token_hash: hashToken(await tokenOf(app, id)),
        status: 'pending',
        client_account_id: null,
        expires_at: new Date(now.getTime() + app.config.inviteTtlDays * 86_400_000).toISOString(),
        created_at: at,
        updated_at: at,
      };
      await trx.insertInto('delegation_invites').values(row).execute();
      await writeAudit(trx, {
        accountId: partnerId,
        actor,
        action: 'delegation_invite.created',
        details: { brand: host, invite: id },
        at,
      });
      return row;
    });
  // Two concurrent first invites: the loser's insert breaks the one-pending index, and
  // its second attempt finds the winner's invite.
  const invite = await attempt().catch((e) =>
    isUniqueViolation(e) ? attempt() : Promise.reject(e),
  );
  const token = await tokenOf(app, invite.id);
  return {
    ok: true,
    brand: host,
    token,
    onboarding_url: onboardingUrl(app, token),
    status: 'pending',
    return_url: invite.return_url,
    expires_at: invite.expires_at,
  };
}

/** Revokes a pending invite of this partner; any other state is a 409 naming it. */
export async function revokeInvite(
  app: AppContext,
  partnerId: string,
  token: string,
  actor: string,
): Promise<{ ok: true; token: string; status: 'revoked' }> {
  const at = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    const invite = await findInvite(trx, token, at);
    if (!invite || invite.partner_account_id !== partnerId) throw notFound();
    if (invite.status !== 'pending') throw conflict(`invite is ${invite.status}`);
    const r = await trx
      .updateTable('delegation_invites')
      .set({ status: 'revoked', updated_at: at })
      .where('id', '=', invite.id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) throw conflict('invite is no longer pending');
    await writeAudit(trx, {
      accountId: partnerId,
      actor,
      action: 'delegation_invite.revoked',
      details: { brand: invite.brand_host, invite: invite.id },
      at,
    });
    return { ok: true as const, token, status: 'revoked' as const };
  });
}

/** The partner's name and look on the onboarding of its invites (from its brand kit). */
export interface PartnerLook {
  partner_name: string;
  /** The partner's account name: named at the consent step, where a display name alone could pose as another. */
  partner_account_name: string;
  partner_logo_url: string | null;
  partner_accent: string | null;
}

/** The invite behind a token, with an expired pending invite marked expired first. */
export async function findInvite(db: Db, token: string, at: string) {
  if (!/^inv_[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const tokenHash = hashToken(token);
  await expirePending(db, at, { tokenHash });
  return db
    .selectFrom('delegation_invites as i')
    .innerJoin('accounts as p', 'p.id', 'i.partner_account_id')
    .leftJoin('brand_kits as k', 'k.account_id', 'i.partner_account_id')
    .selectAll('i')
    .select((eb) => [
      // The partner as its clients see it: its brand kit's name, else its account's.
      eb.fn.coalesce('k.display_name', 'p.name').as('partner_name'),
      'p.name as partner_account_name',
      'k.logo_url as partner_logo_url',
      'k.accent_color as partner_accent',
    ])
    .where('i.token_hash', '=', tokenHash)
    .executeTakeFirst() as Promise<
    (DelegationInvitesTable & PartnerLook & { status: InviteStatus }) | undefined
  >;
}

/** Pending invites past their expiry become expired (lazily, where they are looked at). */
export async function expirePending(
  db: Db,
  at: string,
  which: { tokenHash: string } | { partnerId: string; host?: string },
) {
  let q = db
    .updateTable('delegation_invites')
    .set({ status: 'expired', updated_at: at })
    .where('status', '=', 'pending')
    .where('expires_at', '<=', at);
  q =
    'tokenHash' in which
      ? q.where('token_hash', '=', which.tokenHash)
      : q.where('partner_account_id', '=', which.partnerId);
  if ('host' in which && which.host !== undefined) q = q.where('brand_host', '=', which.host);
  await q.execute();
}

/** A partner's invitations and their states, newest first (pending ones expire on read). */
export async function listInvites(app: AppContext, partnerId: string) {
  await expirePending(app.db, app.clock.now().toISOString(), { partnerId });
  return app.db
    .selectFrom('delegation_invites')
    .select(['id', 'brand_host', 'status', 'created_at', 'expires_at'])
    .where('partner_account_id', '=', partnerId)
    .orderBy('created_at', 'desc')
    .limit(100)
    .execute() as Promise<
    (Pick<DelegationInvitesTable, 'id' | 'brand_host' | 'created_at' | 'expires_at'> & {
      status: InviteStatus;
    })[]
  >;
}

/** Revokes a pending invitation of this partner by its id (the portal never shows tokens twice). */
export async function revokeInviteById(
  app: AppContext,
  partnerId: string,
  id: string,
  actor: string,
) {
  const invite = await app.db
    .selectFrom('delegation_invites')
    .select('id')
    .where('id', '=', id)
    .where('partner_account_id', '=', partnerId)
    .executeTakeFirst();
  if (!invite) throw notFound();
  return revokeInvite(app, partnerId, await tokenOf(app, invite.id), actor);
}

/** A pending invitation's onboarding link, for its partner; 409 once it is no longer pending. */
export async function pendingInviteLink(app: AppContext, partnerId: string, id: string) {
  await expirePending(app.db, app.clock.now().toISOString(), { partnerId });
  const invite = await app.db
    .selectFrom('delegation_invites')
    .select(['id', 'status'])
    .where('id', '=', id)
    .where('partner_account_id', '=', partnerId)
    .executeTakeFirst();
  if (!invite) throw notFound();
  if (invite.status !== 'pending') throw conflict(`invite is ${invite.status}`);
  return onboardingUrl(app, await tokenOf(app, invite.id));
}
