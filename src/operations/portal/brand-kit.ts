import { z } from 'zod';
import {
  KitAccentColor,
  KitDisplayName,
  KitLogoUrl,
  readBrandKit,
  setBrandKit,
} from '../../domain/brand-kit.js';
import { type Access, type Actor, API_PLANS, actorLabel, allows } from '../../policy.js';
import { defineOperation } from '../operation.js';

/**
 * Who keeps the brand kit, the one rule for the operations and for the page showing the
 * form: owners and admins of an account that has clients (partner and agency plans).
 */
const BRAND_KIT_ACCESS: Access = { minRole: 'admin', plans: API_PLANS };
export const mayEditBrandKit = (actor: Actor) => allows(actor, BRAND_KIT_ACCESS);

const BrandKitAnswer = z.object({
  brand_kit: z.object({
    display_name: z.string().nullable(),
    logo_url: z.string().nullable(),
    accent_color: z.string().nullable(),
  }),
});

export const getBrandKit = defineOperation({
  id: 'get_brand_kit',
  summary: "The partner's brand kit for client-facing pages",
  input: z.strictObject({}),
  output: BrandKitAnswer,
  access: BRAND_KIT_ACCESS,
  portal: true,
  async handler({ app, actor }) {
    return { brand_kit: await readBrandKit(app, actor.accountId) };
  },
});

/** The form sends every field: an empty one is cleared (the account's name stands in). */
export const saveBrandKit = defineOperation({
  id: 'save_brand_kit',
  summary: 'Save the brand kit',
  input: z.strictObject({
    display_name: KitDisplayName,
    logo_url: KitLogoUrl,
    accent_color: KitAccentColor,
  }),
  output: BrandKitAnswer,
  access: BRAND_KIT_ACCESS,
  portal: true,
  async handler({ app, actor }, input) {
    return { brand_kit: await setBrandKit(app, actor.accountId, input, actorLabel(actor)) };
  },
});
