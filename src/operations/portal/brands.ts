import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { deleteBrand } from '../../domain/brand-deletion.js';
import {
  claimChallenge,
  requestBrandVerification,
  verifyByDns,
} from '../../domain/brand-verification.js';
import {
  addBrand,
  brandDetection,
  setBrandAliases,
  setBrandMatchPolicy,
} from '../../domain/brands.js';
import {
  listConnectors,
  setConnector,
  setConnectorTargets,
} from '../../domain/connector-settings.js';
import { discoverFeeds } from '../../domain/feed-discovery.js';
import { addFeed, listFeeds, removeFeed } from '../../domain/feeds.js';
import { forbidden } from '../../errors.js';
import { type Actor, actorLabel, brandFor } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { BrandHost, Ok, Timestamp } from '../schemas.js';

/**
 * Brands of the account and what monitors them: adding a brand, its feeds and its
 * aliases. Owners and admins, own brands only: a client brand is its client's to run.
 */
async function ownBrand(ctx: { app: AppContext; actor: Actor }, host: string) {
  const access = await brandFor(ctx.app, ctx.actor, host);
  if (access.relation !== 'own') throw forbidden("only the brand's own account changes it");
  return access.brand;
}

const MatchPolicy = z.object({
  strict: z.enum(['auto', 'on', 'off']),
  exactCase: z.boolean(),
  require: z.array(z.string()).readonly(),
  exclude: z.array(z.string()).readonly(),
});

export const addBrandInApp = defineOperation({
  id: 'add_brand',
  summary: 'Add a brand to monitor',
  input: z.strictObject({
    host: BrandHost,
    name: z.string().trim().max(80, 'must be at most 80 characters').optional(),
  }),
  output: z.object({ ok: Ok, brand: z.string() }),
  access: { minRole: 'admin' },
  portal: true,
  async handler({ app, actor }, input) {
    await addBrand(app, {
      accountId: actor.accountId,
      host: input.host,
      name: input.name || undefined,
      verified: false,
      actor: actorLabel(actor),
    });
    return { ok: true, brand: input.host };
  },
});

export const brandMonitoring = defineOperation({
  id: 'brand_monitoring',
  summary: "How a brand is recognised, and its feeds (own brands' only)",
  input: z.strictObject({ brand: BrandHost }),
  output: z.object({
    relation: z.enum(['own', 'delegated']),
    aliases: z.array(z.string()),
    match: MatchPolicy,
    sources: z.array(
      z.object({
        id: z.string(),
        url: z.string(),
        last_polled_at: Timestamp.nullable(),
        next_poll_at: Timestamp.nullable(),
        last_status: z.string().nullable(),
        last_error: z.string().nullable(),
      }),
    ),
    connectors: z.array(
      z.object({
        connector: z.string(),
        name: z.string(),
        enabled: z.boolean(),
        last_polled_at: Timestamp.nullable(),
        next_poll_at: Timestamp.nullable(),
        last_status: z.string().nullable(),
        last_error: z.string().nullable(),
        failing_since: Timestamp.nullable(),
        items_found: z.number().int(),
        targets: z
          .object({ what: z.string(), example: z.string(), set: z.array(z.string()) })
          .optional(),
      }),
    ),
  }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    const { brand, relation } = await brandFor(app, actor, input.brand);
    const own = relation === 'own';
    return {
      relation,
      ...(await brandDetection(app, brand.id)),
      sources: own ? await listFeeds(app, brand.id) : [],
      connectors: own ? await listConnectors(app, brand.id) : [],
    };
  },
});

export const discoverFeedsInApp = defineOperation({
  id: 'discover_feeds',
  summary: 'Find the feeds a site offers',
  input: z.strictObject({
    brand: BrandHost,
    url: z.string().trim().min(1, 'is required').max(2000),
  }),
  output: z.object({
    feeds: z.array(
      z.object({
        url: z.string(),
        title: z.string(),
        via: z.enum(['announced', 'common path', 'news sitemap']),
        items: z.number().int(),
      }),
    ),
  }),
  access: { minRole: 'admin' },
  portal: true,
  async handler(ctx, input) {
    await ownBrand(ctx, input.brand);
    return { feeds: await discoverFeeds(ctx.app, input.url) };
  },
});

export const setConnectorInApp = defineOperation({
  id: 'set_connector',
  summary: "Switch one of a brand's connectors on or off",
  input: z.strictObject({
    brand: BrandHost,
    connector: z.string().min(1).max(40),
    enabled: z.enum(['on', 'off']),
  }),
  output: z.object({ ok: Ok }),
  access: { minRole: 'admin' },
  portal: true,
  async handler(ctx, input) {
    const brand = await ownBrand(ctx, input.brand);
    await setConnector(
      ctx.app,
      brand,
      input.connector,
      input.enabled === 'on',
      actorLabel(ctx.actor),
    );
    return { ok: true };
  },
});

export const setConnectorTargetsInApp = defineOperation({
  id: 'set_connector_targets',
  summary: 'Name what a connector reads for a brand (its App Store apps, its YouTube channels)',
  input: z.strictObject({
    brand: BrandHost,
    connector: z.string().min(1).max(40),
    targets: z.string().max(2000).default(''),
  }),
  output: z.object({ ok: Ok }),
  access: { minRole: 'admin' },
  portal: true,
  async handler(ctx, input) {
    const brand = await ownBrand(ctx, input.brand);
    await setConnectorTargets(
      ctx.app,
      brand,
      input.connector,
      input.targets,
      actorLabel(ctx.actor),
    );
    return { ok: true };
  },
});

export const addSourceInApp = defineOperation({
  id: 'add_source',
  summary: "Add a feed to a brand's sources",
  input: z.strictObject({ brand: BrandHost, url: z.string().trim().min(1, 'is required') }),
  output: z.object({ ok: Ok, source: z.object({ id: z.string(), url: z.string() }) }),
  access: { minRole: 'admin' },
  portal: true,
  async handler(ctx, input) {
    const brand = await ownBrand(ctx, input.brand);
    return { ok: true, source: await addFeed(ctx.app, brand, input.url, actorLabel(ctx.actor)) };
  },
});

export const removeSourceInApp = defineOperation({
  id: 'remove_source',
  summary: "Remove a feed from a brand's sources",
  input: z.strictObject({ brand: BrandHost, id: z.string().min(1).max(100) }),
  output: z.object({ ok: Ok }),
  access: { minRole: 'admin' },
  portal: true,
  async handler(ctx, input) {
    const brand = await ownBrand(ctx, input.brand);
    await removeFeed(ctx.app, brand, input.id, actorLabel(ctx.actor));
    return { ok: true };
  },
});

export const setAliasesInApp = defineOperation({
  id: 'set_brand_aliases',
  summary: "Replace a brand's aliases",
  input: z.strictObject({ brand: BrandHost, aliases: z.string().max(3000) }),
  output: z.object({ ok: Ok, aliases: z.array(z.string()) }),
  access: { minRole: 'admin' },
  portal: true,
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
export const setMatchPolicyInApp = defineOperation({
  id: 'set_brand_match_policy',
  summary: "Replace a brand's match policy",
  input: z.strictObject({
    brand: BrandHost,
    strict: z.string().max(10),
    exact_case: z.string().max(10),
    require: z.string().max(3000),
    exclude: z.string().max(3000),
  }),
  output: z.object({ ok: Ok, match: MatchPolicy }),
  access: { minRole: 'admin' },
  portal: true,
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

/**
 * Verifying a brand: proof of control of its host, for this account (domain/
 * brand-verification.ts). The host may be the account's own brand, one nobody monitors
 * yet, or one another account holds unverified, which the proof takes from it (a claim).
 */
export const verifyBrandByEmail = defineOperation({
  id: 'verify_brand_by_email',
  summary: 'Send a verification link to an address at the brand host',
  input: z.strictObject({ brand: BrandHost, email: z.string().trim().max(254) }),
  output: z.object({ email: z.string() }),
  access: { minRole: 'admin' },
  portal: true,
  async handler({ app, actor }, input) {
    return requestBrandVerification(app, {
      accountId: actor.accountId,
      host: input.brand,
      email: input.email,
      actor: actorLabel(actor),
    });
  },
});

export const brandChallenge = defineOperation({
  id: 'brand_verification_challenge',
  summary: 'The DNS TXT record that proves control of a brand host for this account',
  input: z.strictObject({ brand: BrandHost }),
  output: z.object({
    brand: z.string(),
    name: z.string(),
    value: z.string(),
    own: z.boolean().describe("whether it is one of this account's brands"),
    verified: z.boolean().describe('whether this account has verified it already'),
    admin_mailboxes: z
      .string()
      .describe('the addresses whose link takes the host from another team that holds it'),
  }),
  access: { minRole: 'admin' },
  portal: true,
  async handler({ app, actor }, input) {
    return { brand: input.brand, ...(await claimChallenge(app, actor.accountId, input.brand)) };
  },
});

export const verifyBrandByDns = defineOperation({
  id: 'verify_brand_by_dns',
  summary: 'Verify (or claim) a brand host by its DNS TXT record',
  input: z.strictObject({ brand: BrandHost }),
  output: z.object({
    ok: Ok,
    brand: z.string(),
    claimed: z.boolean(),
    stories_removed: z.number().int(),
  }),
  access: { minRole: 'admin' },
  portal: true,
  async handler({ app, actor }, input) {
    const done = await verifyByDns(app, {
      accountId: actor.accountId,
      host: input.brand,
      actor: actorLabel(actor),
    });
    return {
      ok: true,
      brand: done.host,
      claimed: done.claimed,
      stories_removed: done.stories_removed,
    };
  },
});

/**
 * Deletes one of the account's own brands with its stories, feeds and delegations
 * (owners; domain/brand-deletion.ts says what is kept).
 */
export const deleteBrandInApp = defineOperation({
  id: 'delete_brand',
  summary: 'Delete a brand and everything monitored for it',
  input: z.strictObject({ brand: BrandHost }),
  output: z.object({
    ok: Ok,
    host: z.string(),
    stories: z.number().int(),
    partners: z.number().int(),
  }),
  access: { minRole: 'owner' },
  portal: true,
  async handler(ctx, input) {
    const brand = await ownBrand(ctx, input.brand);
    return { ok: true, ...(await deleteBrand(ctx.app, brand, actorLabel(ctx.actor))) };
  },
});
