import { z } from 'zod';
import { requestBrandVerification } from '../../domain/brand-verification.js';
import {
  addBrand,
  setBrandAliases,
  setBrandMatchPolicy,
  shownMatchPolicy,
} from '../../domain/brands.js';
import { addFeed, listFeeds, removeFeed } from '../../domain/feeds.js';
import { forbidden } from '../../errors.js';
import { actorLabel, brandFor } from '../../policy.js';
import { BrandHost } from '../schemas.js';
import { definePortalOperation } from './define.js';

/**
 * Brands of the account and what monitors them: adding a brand, its feeds and its
 * aliases. Owners and admins, own brands only: a client brand is its client's to run.
 */
async function ownBrand(ctx: Parameters<typeof addBrandInApp.handler>[0], host: string) {
  const access = await brandFor(ctx.app, ctx.actor, host);
  if (access.relation !== 'own') throw forbidden("only the brand's own account changes it");
  const row = await ctx.app.db
    .selectFrom('brands')
    .select(['id', 'account_id', 'host', 'aliases'])
    .where('id', '=', access.brand.id)
    .executeTakeFirstOrThrow();
  return row;
}

export const addBrandInApp = definePortalOperation({
  access: { minRole: 'admin' },
  input: z.strictObject({
    host: BrandHost,
    name: z.string().trim().max(80, 'must be at most 80 characters').optional(),
  }),
  async handler({ app, actor }, input) {
    await addBrand(
      app,
      actor.accountId,
      input.host,
      input.name || undefined,
      false,
      actorLabel(actor),
    );
    return { ok: true, brand: input.host };
  },
});

export const brandMonitoring = definePortalOperation({
  access: {},
  input: z.strictObject({ brand: BrandHost }),
  async handler(ctx, input) {
    const access = await brandFor(ctx.app, ctx.actor, input.brand);
    const row = await ctx.app.db
      .selectFrom('brands')
      .select(['aliases', 'match_policy'])
      .where('id', '=', access.brand.id)
      .executeTakeFirstOrThrow();
    return {
      relation: access.relation,
      aliases: JSON.parse(row.aliases) as string[],
      match: shownMatchPolicy(row.match_policy),
      sources: access.relation === 'own' ? await listFeeds(ctx.app, access.brand.id) : [],
    };
  },
});

export const addSourceInApp = definePortalOperation({
  access: { minRole: 'admin' },
  input: z.strictObject({ brand: BrandHost, url: z.string().trim().min(1, 'is required') }),
  async handler(ctx, input) {
    const brand = await ownBrand(ctx, input.brand);
    return { ok: true, source: await addFeed(ctx.app, brand, input.url, actorLabel(ctx.actor)) };
  },
});

export const removeSourceInApp = definePortalOperation({
  access: { minRole: 'admin' },
  input: z.strictObject({ brand: BrandHost, id: z.string().min(1).max(100) }),
  async handler(ctx, input) {
    const brand = await ownBrand(ctx, input.brand);
    await removeFeed(ctx.app, brand, input.id, actorLabel(ctx.actor));
    return { ok: true };
  },
});

export const setAliasesInApp = definePortalOperation({
  access: { minRole: 'admin' },
  input: z.strictObject({ brand: BrandHost, aliases: z.string().max(3000) }),
  async handler(ctx, input) {
    const brand = await ownBrand(ctx, input.brand);
    const aliases = await setBrandAliases(
      ctx.app,
      brand,
      input.aliases.split(/[,\n]/),
      actorLabel(ctx.actor),
    );
    return { ok: true, aliases };
  },
});

/** The match policy form: a select, a checkbox and two comma-separated lists. */
export const setMatchPolicyInApp = definePortalOperation({
  access: { minRole: 'admin' },
  input: z.strictObject({
    brand: BrandHost,
    strict: z.string().max(10),
    exact_case: z.string().max(10),
    require: z.string().max(3000),
    exclude: z.string().max(3000),
  }),
  async handler(ctx, input) {
    const brand = await ownBrand(ctx, input.brand);
    const list = (text: string) => text.split(/[,\n]/);
    const match = await setBrandMatchPolicy(
      ctx.app,
      brand,
      {
        strict: input.strict,
        exactCase: input.exact_case === 'on',
        require: list(input.require),
        exclude: list(input.exclude),
      },
      actorLabel(ctx.actor),
    );
    return { ok: true, match };
  },
});

export const verifyBrandByEmail = definePortalOperation({
  access: { minRole: 'admin' },
  input: z.strictObject({ brand: BrandHost, email: z.string().trim().max(254) }),
  async handler(ctx, input) {
    const access = await brandFor(ctx.app, ctx.actor, input.brand);
    if (access.relation !== 'own') throw forbidden("only the brand's own account changes it");
    return requestBrandVerification(ctx.app, access.brand, input.email, actorLabel(ctx.actor));
  },
});
