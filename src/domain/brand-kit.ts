import { z } from 'zod';
import { type AppContext, inTransaction } from '../context.js';
import { requireAccount } from './accounts.js';
import { writeAudit } from './audit.js';

/**
 * A partner's brand kit: the name, logo and colour its clients see on the white-label
 * onboarding of its delegation invites, instead of the service's own look.
 */
export interface BrandKit {
  display_name: string | null;
  logo_url: string | null;
  accent_color: string | null;
}

const codePoints = (s: string) => [...s].length;

/** Each field of the kit as a person types it: an empty value clears the field. */
export const KitDisplayName = z
  .string()
  .trim()
  .refine((s) => codePoints(s) <= 80, 'must be 1 to 80 characters (empty clears it)')
  // Format characters (bidi overrides, zero-width) would let a name read as another.
  .refine((s) => !/[\p{Cc}\p{Cf}]/u.test(s), 'must not contain control or format characters')
  .transform((s) => s || null);

/**
 * The logo is loaded by the client's browser from the partner's host: https only (the
 * onboarding pages allow `img-src https:` and nothing else), and no user:password in it,
 * which the page would otherwise hand to every visitor.
 */
export const KitLogoUrl = z
  .string()
  .trim()
  .max(2048, 'must be at most 2048 characters')
  .transform((s, ctx) => {
    if (!s) return null;
    const url = URL.canParse(s) ? new URL(s) : null;
    if (url?.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: 'must be an https URL' });
      return z.NEVER;
    }
    if (url.username || url.password) {
      ctx.addIssue({ code: 'custom', message: 'must not contain credentials' });
      return z.NEVER;
    }
    if (url.href.length > 2048) {
      ctx.addIssue({ code: 'custom', message: 'must be at most 2048 characters' });
      return z.NEVER;
    }
    return url.href;
  });

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/**
 * The accent goes into a style sheet, so it is a hex colour and nothing else, kept as
 * `#rrggbb` (the short `#rgb` is widened to it).
 */
export const KitAccentColor = z
  .string()
  .trim()
  .transform((s, ctx) => {
    if (!s) return null;
    if (!HEX.test(s)) {
      ctx.addIssue({ code: 'custom', message: 'must be a colour written #rrggbb' });
      return z.NEVER;
    }
    const hex = s.slice(1).toLowerCase();
    return `#${hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex}`;
  });

/** The account's kit; an account without one has every field empty. */
export async function readBrandKit(app: AppContext, accountId: string): Promise<BrandKit> {
  const row = await app.db
    .selectFrom('brand_kits')
    .select(['display_name', 'logo_url', 'accent_color'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row ?? { display_name: null, logo_url: null, accent_color: null };
}

/**
 * Sets the fields named in `patch` (null clears one), leaving the others as they are, in
 * one statement so two editors at once cannot lose each other's fields; audited.
 */
export async function setBrandKit(
  app: AppContext,
  accountId: string,
  patch: Partial<BrandKit>,
  actor: string,
): Promise<BrandKit> {
  await requireAccount(app, accountId);
  const at = app.clock.now().toISOString();
  const fields = Object.fromEntries(
    Object.entries(patch).filter(([, v]) => v !== undefined),
  ) as Partial<BrandKit>;
  await inTransaction(app, async (app) => {
    const trx = app.db;
    await trx
      .insertInto('brand_kits')
      .values({
        account_id: accountId,
        display_name: null,
        logo_url: null,
        accent_color: null,
        ...fields,
        updated_at: at,
      })
      .onConflict((oc) => oc.column('account_id').doUpdateSet({ ...fields, updated_at: at }))
      .execute();
    await writeAudit(trx, {
      accountId,
      actor,
      action: 'account.brand_kit_set',
      details: fields,
      at,
    });
  });
  return readBrandKit(app, accountId);
}
