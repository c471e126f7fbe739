import { createHmac } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { signingSecret, signLink, verifyLink } from '../auth/signed-links.js';
import { type AppContext, inTransaction } from '../context.js';
import { lockRow, lockRows } from '../db/locks.js';
import { queueEmail } from '../email/outbox.js';
import { AppError, conflict, invalid } from '../errors.js';
import { ownerAndAdminEmails } from './accounts.js';
import { writeAudit } from './audit.js';
import { deleteBrand } from './brand-deletion.js';
import {
  brandHostProblem,
  emailOnBrandDomain,
  isMailProviderDomain,
  registrableDomain,
  requireBrandHost,
} from './brand-host.js';
import { addBrand } from './brands.js';

/**
 * Verifying a brand is proving control of its host, for the account that asks: by a
 * mailbox on its registrable domain (a link sent there; ops@mail.acme.co.uk speaks for
 * shop.acme.co.uk, brand-host.ts), or by a DNS TXT record only the domain's owner can
 * publish. The host may be the account's own brand (it becomes verified), not monitored
 * yet (it is added, verified), or held unverified by another account: a **claim**, which
 * takes the host from that holder. A host verified by another account is not taken.
 *
 * What a claim does to the holder (docs/api.md, "Brand claims"): its brand of that host
 * goes as a brand deletion goes (stories, advisories, plans, shares, feeds, delegations;
 * the billing ledger and the audit trail stay), in the claim's transaction, and its owners
 * and admins are emailed. Nothing of it is kept as history: a squatter's stories of
 * someone else's brand are not theirs to keep, and the host's owner starts clean.
 */

const VERIFY_TTL_MS = 48 * 3600_000;
/** The DNS name under the host that carries the TXT record of a claim. */
export const CHALLENGE_LABEL = '_stories-challenge';

export type Proof = 'email' | 'dns';

/** The host's rules for verification: a real brand host, not a mailbox provider's. */
function requireVerifiableHost(host: string) {
  // A brand added before hosts were checked may be a suffix (co.uk): nothing proves it.
  requireBrandHost(host, 'brand');
  if (isMailProviderDomain(host)) {
    throw invalid(`brand: ${host} is a mail provider; its owner verifies it with us directly`);
  }
}

/** The TXT record of `accountId`'s claim of `host`: a MAC of the two with the service's secret. */
async function challengeRecord(app: AppContext, accountId: string, host: string) {
  const mac = createHmac('sha256', await signingSecret(app))
    .update(`brand-claim:${accountId}:${host}`)
    .digest('base64url')
    .slice(0, 32);
  return { name: `${CHALLENGE_LABEL}.${host}`, value: `stories-verification=${mac}` };
}

/**
 * The TXT record that proves `accountId` controls `host` (its name and value, the same
 * every time they are asked for, so the team can publish it once and check when DNS has
 * it), and who holds the host now.
 */
export async function claimChallenge(app: AppContext, accountId: string, host: string) {
  requireVerifiableHost(host);
  // Whether another team holds the host, and whether it verified it, is not said before
  // the proof: any signed-up admin could otherwise survey who monitors what.
  const own = await app.db
    .selectFrom('brands')
    .select('verified')
    .where('host', '=', host)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return {
    ...(await challengeRecord(app, accountId, host)),
    own: own !== undefined,
    verified: own?.verified === 1,
    admin_mailboxes: adminMailboxes(host),
  };
}

/** The TXT strings at `name` (each record's parts joined), or [] when there is none. */
async function txtRecords(app: AppContext, name: string): Promise<string[]> {
  const resolver = new Resolver({ timeout: 2500, tries: 2 });
  if (app.config.dnsServers.length > 0) resolver.setServers(app.config.dnsServers);
  try {
    return (await resolver.resolveTxt(name)).map((parts) => parts.join(''));
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') return [];
    throw invalid(`dns: ${name} could not be looked up (${code ?? 'error'}); try again shortly`);
  }
}

/**
 * A verification must not become a DNS or mail flood: a few attempts an hour per account
 * and host, per account in all, and, for links, per recipient (an account looping over
 * x1.victim.com, x2.victim.com, … still reaches press@victim.com 5 times an hour at most).
 */
const ATTEMPTS_PER_HOUR = {
  dns: { host: 20, account: 100 },
  email: { host: 5, account: 30 },
} as const;
const LINKS_PER_RECIPIENT_PER_HOUR = 5;

async function countAttempt(
  app: AppContext,
  kind: Proof,
  opts: { accountId: string; host: string; recipient?: string },
) {
  const limits = ATTEMPTS_PER_HOUR[kind];
  const buckets: [string, number][] = [
    [`brand-${kind}:${opts.accountId}:${opts.host}`, limits.host],
    [`brand-${kind}:${opts.accountId}`, limits.account],
  ];
  if (opts.recipient) {
    buckets.push([`brand-email-to:${opts.recipient}`, LINKS_PER_RECIPIENT_PER_HOUR]);
  }
  for (const [bucket, limit] of buckets) {
    if ((await app.limiter.hit(bucket, 3600_000)).count > limit) {
      throw new AppError('rate_limited', undefined, { 'retry-after': '3600' });
    }
  }
}

/**
 * The mailboxes that speak for a domain when the proof takes a brand from another team:
 * the administrative ones certificate authorities accept (CA/Browser Forum baseline
 * requirements), at the registrable domain itself. Any address on the domain verifies an
 * account's own brand; a student's address at a university must not delete another
 * team's monitoring of it.
 */
const ADMIN_MAILBOXES = ['admin', 'administrator', 'hostmaster', 'postmaster', 'webmaster'];
const isAdminMailbox = (email: string, host: string) => {
  const at = email.lastIndexOf('@');
  return (
    ADMIN_MAILBOXES.includes(email.slice(0, at)) && email.slice(at + 1) === registrableDomain(host)
  );
};
const adminMailboxes = (host: string) =>
  ADMIN_MAILBOXES.map((m) => `${m}@${registrableDomain(host)}`).join(', ');

/** Verifies (or claims) `host` for the account by its TXT record, if DNS has it now. */
export async function verifyByDns(
  app: AppContext,
  opts: { accountId: string; host: string; actor: string },
) {
  requireVerifiableHost(opts.host);
  await countAttempt(app, 'dns', opts);
  const { name, value } = await challengeRecord(app, opts.accountId, opts.host);
  if (!(await txtRecords(app, name)).includes(value)) {
    throw invalid(
      `dns: no TXT record "${value}" at ${name} yet (a new record can take a few minutes to be seen)`,
    );
  }
  return completeVerification(app, { ...opts, proof: 'dns', detail: name });
}

/**
 * Sends a verification link to an address on the host's registrable domain: whoever
 * opens it there verifies (or claims) the host for the account. It can be asked again
 * as often as needed; each link works until it expires.
 */
export async function requestBrandVerification(
  app: AppContext,
  opts: { accountId: string; host: string; email: string; actor: string },
): Promise<{ email: string }> {
  const email = opts.email.trim().toLowerCase();
  const { host, accountId } = opts;
  requireVerifiableHost(host);
  const held = await app.db
    .selectFrom('brands')
    .select(['id', 'account_id', 'verified'])
    .where('host', '=', host)
    .executeTakeFirst();
  const own = held?.account_id === accountId ? held : undefined;
  if (own?.verified === 1) throw conflict('brand: already verified');
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || !emailOnBrandDomain(email, host)) {
    throw invalid(`email: must be an address on ${registrableDomain(host)}`);
  }
  if (held && !own && !isAdminMailbox(email, host)) {
    throw invalid(
      `email: another team monitors ${host}; to take it, use the DNS record or one of ${adminMailboxes(host)}`,
    );
  }
  await countAttempt(app, 'email', { accountId, host, recipient: email });
  const team = await app.db
    .selectFrom('accounts')
    .select('name')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  const at = app.clock.now().toISOString();
  await inTransaction(app, async (app) => {
    const trx = app.db;
    const token = await signLink(
      app,
      'brand-verify',
      { h: host, a: accountId, e: email },
      VERIFY_TTL_MS,
    );
    await queueEmail(
      trx,
      {
        accountId,
        to: email,
        kind: 'notice',
        subject: `Confirm that ${host} is yours`,
        text: `The team "${team.name}" asked Stories to verify ${host} as theirs. If this brand is yours and they may speak for it, open this link (valid for 48 hours):\n\n${app.config.baseUrl}/verify-brand/${token}\n\nIf not, ignore this email: nothing changes.`,
      },
      at,
    );
    await writeAudit(trx, {
      accountId,
      ...(own && { brandId: own.id }),
      actor: opts.actor,
      action: 'brand.verification_sent',
      details: { email, host },
      at,
    });
  });
  return { email };
}

/**
 * What a link stands for: the host, the account it verifies it for, the mailbox. Links
 * sent before claims existed name the brand by id: theirs is the brand's own account.
 */
async function linkClaim(app: AppContext, token: string) {
  const data = await verifyLink(app, 'brand-verify', token);
  if (!data || typeof data.e !== 'string') return null;
  if (typeof data.h === 'string' && typeof data.a === 'string') {
    return { host: data.h, accountId: data.a, email: data.e };
  }
  if (typeof data.b !== 'string') return null;
  const brand = await app.db
    .selectFrom('brands')
    .select(['host', 'account_id'])
    .where('id', '=', data.b)
    .executeTakeFirst();
  return brand ? { host: brand.host, accountId: brand.account_id, email: data.e } : null;
}

/**
 * The rules hold when the link is opened too, so a link sent under older ones (a suffix
 * such as co.uk, a mailbox off the registrable domain) verifies nothing.
 */
const mailboxSpeaksFor = (email: string, host: string) =>
  !brandHostProblem(host) && !isMailProviderDomain(host) && emailOnBrandDomain(email, host);

/**
 * The page that asks, before anything happens: the host a valid link would verify, the
 * team it verifies it for, and whether that takes it from another team; null for a bad
 * link.
 */
export async function readBrandVerification(app: AppContext, token: string) {
  const claim = await linkClaim(app, token);
  if (!claim || !mailboxSpeaksFor(claim.email, claim.host)) return null;
  const team = await app.db
    .selectFrom('accounts')
    .select('name')
    .where('id', '=', claim.accountId)
    .executeTakeFirst();
  if (!team) return null;
  const held = await app.db
    .selectFrom('brands')
    .select(['account_id', 'verified'])
    .where('host', '=', claim.host)
    .executeTakeFirst();
  const another = held !== undefined && held.account_id !== claim.accountId;
  // Verified by another team meanwhile, or a mailbox that may not take it: nothing to do.
  if (another && (held.verified === 1 || !isAdminMailbox(claim.email, claim.host))) return null;
  return { host: claim.host, team: team.name, takesFromAnother: another };
}

/** Verifies (or claims) the host of a valid link; answers its host, or null for a bad link. */
export async function confirmBrandVerification(
  app: AppContext,
  token: string,
): Promise<string | null> {
  const claim = await linkClaim(app, token);
  if (!claim || !mailboxSpeaksFor(claim.email, claim.host)) return null;
  const done = await completeVerification(app, {
    accountId: claim.accountId,
    host: claim.host,
    proof: 'email',
    detail: claim.email,
    actor: `email:${claim.email}`,
  });
  return done.host;
}

/**
 * The account proved control of the host: its own brand becomes verified; a host nobody
 * monitors is added, verified; a host another account holds unverified is taken from it
 * (deleted there as a brand deletion deletes, its owners and admins told) and added here,
 * verified. One transaction: all of it, or nothing.
 */
async function completeVerification(
  app: AppContext,
  opts: { accountId: string; host: string; proof: Proof; detail: string; actor: string },
): Promise<{ host: string; claimed: boolean; stories_removed: number }> {
  const { accountId, host, proof, actor } = opts;
  const at = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    const held = await trx
      .selectFrom('brands')
      .select(['id', 'account_id', 'host'])
      .where('host', '=', host)
      .executeTakeFirst();
    if (held) {
      // In the order a brand deletion and an unlock take them (stories, then the brand),
      // then read again: a verification that landed meanwhile is seen.
      await lockRows(trx, 'stories', { brand_id: held.id });
      await lockRow(trx, 'brands', { id: held.id });
    }
    const now = held
      ? await trx
          .selectFrom('brands')
          .select(['verified'])
          .where('id', '=', held.id)
          .executeTakeFirst()
      : undefined;
    if (held && now && held.account_id === accountId) {
      if (now.verified !== 1) {
        await trx
          .updateTable('brands')
          .set({ verified: 1, verified_at: at })
          .where('id', '=', held.id)
          .execute();
        await writeAudit(trx, {
          accountId,
          brandId: held.id,
          actor,
          action: 'brand.verified',
          details: { proof, by: opts.detail },
          at,
        });
      }
      return { host, claimed: false, stories_removed: 0 };
    }
    if (held && now?.verified === 1) {
      throw conflict(`host: ${host} is verified by another account`);
    }
    if (held && proof === 'email' && !isAdminMailbox(opts.detail, host)) {
      throw invalid(
        `email: another team monitors ${host}; one of ${adminMailboxes(host)} takes it`,
      );
    }
    let removed = 0;
    if (held && now) {
      removed = (await deleteBrand(app, held, `claim:${accountId}`)).stories;
      await tellHolder(app, held, removed, proof, at);
    }
    // Named from its host: the name the holder gave it is not the owner's.
    const id = await addBrand(app, { accountId, host, verified: true, actor });
    await writeAudit(trx, {
      accountId,
      brandId: id,
      actor,
      action: held ? 'brand.claimed' : 'brand.verified',
      details: { proof, by: opts.detail, ...(held && { from: held.account_id }) },
      at,
    });
    return { host, claimed: held !== undefined, stories_removed: removed };
  });
}

/** The former holder's owners and admins hear what happened and what they can do. */
async function tellHolder(
  app: AppContext,
  held: { account_id: string; host: string },
  removed: number,
  proof: Proof,
  at: string,
) {
  const admins = await ownerAndAdminEmails(app.db, held.account_id);
  const how = proof === 'dns' ? 'a DNS record of the domain' : 'a mailbox at the domain';
  for (const email of admins) {
    await queueEmail(
      app.db,
      {
        accountId: held.account_id,
        to: email,
        kind: 'notice',
        subject: `${held.host} was claimed by its owner`,
        text: [
          `The owner of ${held.host} proved control of it (${how}) and now monitors it on Stories.`,
          `Your team had added ${held.host} without verifying it, so its monitoring there has ended: its ${removed} ${removed === 1 ? 'story' : 'stories'}, with their advisories, plans and shares, were removed. Your billing history is unchanged.`,
          `If you work for ${held.host}, ask its team to invite you as a teammate or a partner.`,
        ].join('\n\n'),
      },
      at,
    );
  }
}
