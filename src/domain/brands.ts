import { z } from 'zod';
import { type AppContext, inTransaction } from '../context.js';
import { decode, encode } from '../db/json-columns.js';
import { AppError, conflict, invalid } from '../errors.js';
import { newId } from '../ids.js';
import { NEWSROOM_FOLLOW } from '../jobs/kinds.js';
import { enqueue } from '../jobs/queue.js';
import type { BrandTerms, MatchPolicy } from '../pipeline/brand-matcher.js';
import { requireAccount } from './accounts.js';
import { writeAudit } from './audit.js';
import { requireBrandHost } from './brand-host.js';
import { seedConnectors } from './connector-rows.js';

/** A brand host is monitored by exactly one account; others reach it through delegations. */
export async function addBrand(
  app: AppContext,
  {
    accountId,
    host,
    name,
    verified,
    actor = 'operator',
    findCoverage = true,
  }: {
    accountId: string;
    host: string;
    name?: string;
    verified: boolean;
    actor?: string;
    /**
     * Coverage found from the start: connectors on, the brand's newsroom sought. Off for
     * the demo's made-up brands, whose real-world namesakes' news is not theirs.
     */
    findCoverage?: boolean;
  },
): Promise<string> {
  requireBrandHost(host);
  await requireAccount(app, accountId);
  const id = newId('brd');
  const now = app.clock.now().toISOString();
  const taken = await app.db
    .selectFrom('brands')
    .select('id')
    .where('host', '=', host)
    .executeTakeFirst();
  if (taken) {
    throw conflict(
      'host: this brand is already monitored; if the domain is yours, claim it by verifying it',
    );
  }
  await inTransaction(app, async (app) => {
    const trx = app.db;
    await trx
      .insertInto('brands')
      .values({
        id,
        account_id: accountId,
        host,
        name: name ?? defaultName(host),
        verified: verified ? 1 : 0,
        verified_at: verified ? now : null,
        aliases: '[]',
        created_at: now,
      })
      .execute();
    // Coverage found from the start, with no feed URL to paste (docs/sources.md): the
    // connectors, and the feeds of the brand's own site (its newsroom) once it is read.
    await seedConnectors(trx, app.config, id, now, findCoverage);
    if (findCoverage && app.config.connectors.length > 0) {
      await enqueue(trx, NEWSROOM_FOLLOW, { brand: id }, { now });
    }
    await writeAudit(trx, {
      accountId,
      brandId: id,
      actor,
      action: 'brand.added',
      details: { host, verified },
      at: now,
    });
  });
  return id;
}

/** acme.com → Acme */
export const defaultName = (host: string) => {
  const label = host.split('.')[0] ?? host;
  return label.charAt(0).toUpperCase() + label.slice(1);
};

export async function requireBrandByHost(app: AppContext, host: string) {
  const brand = await app.db
    .selectFrom('brands')
    .select(['id', 'account_id', 'host', 'name', 'verified', 'aliases', 'match_policy'])
    .where('host', '=', host)
    .executeTakeFirst();
  if (!brand) throw new AppError('not_found', `brand ${host}: not found`);
  return brand;
}

/**
 * A brand's aliases as they are kept: other names it is mentioned by (docs/pipeline.md,
 * "Detection"). Each alias 2 to 100 characters, at most 20, duplicates dropped.
 */
export function cleanAliases(aliases: readonly string[], field = 'aliases'): string[] {
  const clean = [...new Set(aliases.map((a) => a.trim().replace(/\s+/g, ' ')).filter(Boolean))];
  const bad = clean.find((a) => a.length < 2 || a.length > 100);
  if (bad !== undefined) throw invalid(`${field}: "${bad}" must be 2 to 100 characters`);
  if (clean.length > 20) throw invalid(`${field}: at most 20`);
  return clean;
}

/** Replaces the brand's aliases (see cleanAliases). */
export async function setBrandAliases(
  app: AppContext,
  brand: { id: string; account_id: string },
  aliases: readonly string[],
  actor: string,
): Promise<string[]> {
  const clean = cleanAliases(aliases);
  await saveDetectionSetting(
    app,
    brand,
    actor,
    { aliases: encode('brands.aliases', clean) },
    {
      action: 'brand.aliases_set',
      details: { aliases: clean },
    },
  );
  return clean;
}

/** Writes one of the brand's detection settings and its audit entry, in one transaction. */
async function saveDetectionSetting(
  app: AppContext,
  brand: { id: string; account_id: string },
  actor: string,
  set: { aliases: string } | { match_policy: string },
  audit: { action: string; details: Record<string, unknown> },
) {
  const at = app.clock.now().toISOString();
  await inTransaction(app, async (app) => {
    const trx = app.db;
    await trx.updateTable('brands').set(set).where('id', '=', brand.id).execute();
    await writeAudit(trx, { accountId: brand.account_id, brandId: brand.id, actor, ...audit, at });
  });
}

/** A brand row as the detector reads it: its name, host, aliases and match policy. */
export function brandTermsOf(row: {
  host: string;
  name: string;
  aliases?: string | null;
  match_policy?: string | null;
}): BrandTerms {
  return {
    host: row.host,
    name: row.name,
    aliases: row.aliases ? decode('brands.aliases', row.aliases) : [],
    match: row.match_policy ? decode('brands.match_policy', row.match_policy) : {},
  };
}

const Phrases = (field: string) =>
  z
    .array(z.string())
    .max(20, `${field}: at most 20`)
    .transform((list) => [
      ...new Set(list.map((p) => p.trim().replace(/\s+/g, ' ')).filter(Boolean)),
    ])
    .refine((list) => list.every((p) => p.length >= 2 && p.length <= 100), {
      message: `${field}: each must be 2 to 100 characters`,
    });

/** A match policy as it is kept (docs/pipeline.md, "Names that are common words"). */
export const MatchPolicySchema = z.strictObject({
  strict: z.enum(['auto', 'on', 'off']).default('auto'),
  exactCase: z.boolean().default(false),
  require: Phrases('require').default([]),
  exclude: Phrases('exclude').default([]),
});

/** The policy checked and completed with its defaults; a clear 400 when it is not one. */
export function cleanMatchPolicy(input: unknown, field = 'match'): Required<MatchPolicy> {
  const parsed = MatchPolicySchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.length ? `.${issue.path.join('.')}` : '';
    throw invalid(`${field}${at}: ${issue.message}`);
  }
  return parsed.data;
}

/** Replaces the brand's match policy (see cleanMatchPolicy). */
export async function setBrandMatchPolicy(
  app: AppContext,
  brand: { id: string; account_id: string },
  policy: unknown,
  actor: string,
): Promise<Required<MatchPolicy>> {
  const clean = cleanMatchPolicy(policy);
  await saveDetectionSetting(
    app,
    brand,
    actor,
    { match_policy: encode('brands.match_policy', clean) },
    {
      action: 'brand.match_policy_set',
      details: clean,
    },
  );
  return clean;
}

/** The brand's policy with its defaults filled in, as shown to people. */
export const shownMatchPolicy = (stored: string | null | undefined) =>
  cleanMatchPolicy(stored ? decode('brands.match_policy', stored) : {});

/** What makes a brand recognised in articles: its aliases and its match policy, decoded. */
export async function brandDetection(app: AppContext, brandId: string) {
  const row = await app.db
    .selectFrom('brands')
    .select(['aliases', 'match_policy'])
    .where('id', '=', brandId)
    .executeTakeFirstOrThrow();
  return {
    aliases: decode('brands.aliases', row.aliases),
    match: shownMatchPolicy(row.match_policy),
  };
}

/**
 * The brands an account reads: its own and the client brands actively delegated to it,
 * by host, within a scoped key's hosts.
 */
export async function readableBrands(
  app: AppContext,
  accountId: string,
  scope: readonly string[] | null,
) {
  const own = await app.db
    .selectFrom('brands')
    .select(['host as brand', 'name', 'verified'])
    .where('account_id', '=', accountId)
    .execute();
  const delegated = await app.db
    .selectFrom('delegations as d')
    .innerJoin('brands as b', 'b.id', 'd.brand_id')
    .select(['b.host as brand', 'b.name', 'b.verified', 'd.client_account_id as client'])
    .where('d.partner_account_id', '=', accountId)
    .where('d.status', '=', 'active')
    .execute();
  return [
    ...own.map((b) => ({ ...b, verified: b.verified === 1, delegated: false, client: null })),
    ...delegated.map((b) => ({ ...b, verified: b.verified === 1, delegated: true })),
  ]
    .filter((b) => scope === null || scope.includes(b.brand))
    .sort((a, b) => a.brand.localeCompare(b.brand));
}
