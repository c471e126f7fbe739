import { z } from 'zod';
import {
  KitAccentColor,
  KitDisplayName,
  KitLogoUrl,
  readBrandKit,
  setBrandKit,
} from '../../domain/brand-kit.js';
import { forbidden } from '../../errors.js';
import { type Actor, actorLabel, hasApiAccess, hasRole } from '../../policy.js';
import { definePortalOperation } from './define.js';

/**
 * Who keeps the brand kit, the one rule for the operations and for the page showing the
 * form: owners and admins of an account that has clients (partner and agency plans).
 */
export const mayEditBrandKit = (actor: Actor) =>
  hasRole(actor, 'admin') && hasApiAccess(actor.plan);

export const getBrandKit = definePortalOperation({
  access: {},
  input: z.strictObject({}),
  async handler({ app, actor }) {
    if (!mayEditBrandKit(actor)) throw forbidden();
    return { brand_kit: await readBrandKit(app, actor.accountId) };
  },
});

/** The form sends every field: an empty one is cleared (the account's name stands in). */
export const saveBrandKit = definePortalOperation({
  access: {},
  input: z.strictObject({
    display_name: KitDisplayName,
    logo_url: KitLogoUrl,
    accent_color: KitAccentColor,
  }),
  async handler({ app, actor }, input) {
    if (!mayEditBrandKit(actor)) throw forbidden();
    return { brand_kit: await setBrandKit(app, actor.accountId, input, actorLabel(actor)) };
  },
});
