import { signLink, verifyLink } from '../auth/signed-links.js';
import { type AppContext, inTransaction } from '../context.js';
import { queueEmail } from '../email/outbox.js';
import { AppError, conflict, invalid } from '../errors.js';
import { writeAudit } from './audit.js';
import {
  brandHostProblem,
  emailOnBrandDomain,
  isMailProviderDomain,
  registrableDomain,
  requireBrandHost,
} from './brand-host.js';

const VERIFY_TTL_MS = 48 * 3600_000;

/**
 * Ownership of a brand is shown by a mailbox on its domain: a link is sent to an address
 * on the brand's registrable domain (brand-host.ts: ops@mail.acme.co.uk speaks for
 * shop.acme.co.uk), and whoever opens it verifies the brand. It can be asked again as
 * often as needed; each link works until it expires.
 */
export async function requestBrandVerification(
  app: AppContext,
  brand: { id: string; account_id: string; host: string; verified: number },
  rawEmail: string,
  actor: string,
): Promise<{ email: string }> {
  const email = rawEmail.trim().toLowerCase();
  if (brand.verified === 1) throw conflict('brand: already verified');
  // A brand added before hosts were checked may be a suffix (co.uk): no mailbox proves it.
  requireBrandHost(brand.host, 'brand');
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || !emailOnBrandDomain(email, brand.host)) {
    throw invalid(`email: must be an address on ${registrableDomain(brand.host)}`);
  }
  // A mailbox at a mail provider proves nothing about owning the provider's brand.
  if (isMailProviderDomain(brand.host)) {
    throw invalid(
      `brand: ${brand.host} is a mail provider; its owner verifies it with us directly`,
    );
  }
  // A few links per brand and hour: the form must not become a way to flood a domain.
  const sent = await app.limiter.hit(`brand-verify:${brand.id}`, 3600_000);
  if (sent.count > 5) throw new AppError('rate_limited', undefined, { 'retry-after': '3600' });
  const at = app.clock.now().toISOString();
  await inTransaction(app, async (app) => {
    const trx = app.db;
    const token = await signLink(app, 'brand-verify', { b: brand.id, e: email }, VERIFY_TTL_MS);
    await queueEmail(
      trx,
      {
        accountId: brand.account_id,
        to: email,
        kind: 'notice',
        subject: `Confirm that ${brand.host} is yours`,
        text: `Someone asked Stories to verify ${brand.host} for their team. If this brand is yours and they may speak for it, open this link (valid for 48 hours):\n\n${app.config.baseUrl}/verify-brand/${token}\n\nIf not, ignore this email: nothing changes.`,
      },
      at,
    );
    await writeAudit(trx, {
      accountId: brand.account_id,
      brandId: brand.id,
      actor,
      action: 'brand.verification_sent',
      details: { email },
      at,
    });
  });
  return { email };
}

/** The brand host a valid link would verify, for the page that asks; null otherwise. */
export async function readBrandVerification(
  app: AppContext,
  token: string,
): Promise<string | null> {
  const data = await verifyLink(app, 'brand-verify', token);
  if (!data || typeof data.b !== 'string' || typeof data.e !== 'string') return null;
  const brand = await app.db
    .selectFrom('brands')
    .select('host')
    .where('id', '=', data.b)
    .executeTakeFirst();
  return brand && mailboxSpeaksFor(data.e, brand.host) ? brand.host : null;
}

/**
 * The rules hold when the link is opened too, so a link sent under older ones (a suffix
 * such as co.uk, a mailbox off the registrable domain) verifies nothing.
 */
const mailboxSpeaksFor = (email: string, host: string) =>
  !brandHostProblem(host) && !isMailProviderDomain(host) && emailOnBrandDomain(email, host);

/** Verifies the brand of a valid link; answers its host, or null for a bad link. */
export async function confirmBrandVerification(
  app: AppContext,
  token: string,
): Promise<string | null> {
  const data = await verifyLink(app, 'brand-verify', token);
  if (!data || typeof data.b !== 'string' || typeof data.e !== 'string') return null;
  const at = app.clock.now().toISOString();
  return inTransaction(app, async (app) => {
    const trx = app.db;
    const brand = await trx
      .selectFrom('brands')
      .select(['id', 'account_id', 'host', 'verified'])
      .where('id', '=', data.b as string)
      .executeTakeFirst();
    if (!brand) return null;
    if (!mailboxSpeaksFor(data.e as string, brand.host)) return null;
    if (brand.verified !== 1) {
      await trx
        .updateTable('brands')
        .set({ verified: 1, verified_at: at })
        .where('id', '=', brand.id)
        .execute();
      await writeAudit(trx, {
        accountId: brand.account_id,
        brandId: brand.id,
        actor: `email:${data.e}`,
        action: 'brand.verified',
        details: { email: data.e },
        at,
      });
    }
    return brand.host;
  });
}
