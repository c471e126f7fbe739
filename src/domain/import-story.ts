import type { Insertable } from 'kysely';
import { type AppContext, inTransaction } from '../context.js';
import { encode } from '../db/json-columns.js';
import { lockRow } from '../db/locks.js';
import type { DB } from '../db/schema.js';
import { invalid } from '../errors.js';
import { newId } from '../ids.js';
import type { Generated } from '../pipeline/advisor.js';
import { namesBrand } from '../pipeline/brand-matcher.js';
import { type ArticleInput, firstSource } from '../pipeline/builtin-advisor.js';
import { withJudgement } from '../pipeline/judgement.js';
import { languageOf } from '../pipeline/language.js';
import { queueEvent } from '../webhooks/events.js';
import { queueAlertCheck } from './alerts.js';
import { type AuditEntry, auditRow } from './audit.js';
import { brandTermsOf } from './brands.js';
import { addCoverage, coverageRows } from './coverage.js';
import { storyHolding } from './stories.js';
import { newStoryDocument } from './story-documents.js';

type BrandRef = { id: string; account_id: string };

/**
 * Every row one imported article becomes: the story, its article (source s1), its live
 * advisory, the phases of the plan, its search document, what it adds to the overview's
 * counts and the audit entry. Exported so bulk loaders (the
 * benchmark's seed) write exactly what an import writes.
 */
export function buildStoryRows({
  brand,
  article,
  actor,
  detectedAt,
  now,
  generated,
}: {
  brand: BrandRef;
  article: ArticleInput;
  actor: string;
  detectedAt: string;
  now: string;
  generated: Generated;
}) {
  const g = generated.advisory;
  const storyId = newId('sto');
  const eventUri = newId('evt');
  const advisoryId = newId('adv');
  const stories: Insertable<DB['stories']> = {
    id: storyId,
    event_uri: eventUri,
    brand_id: brand.id,
    title: article.title,
    severity: g.severity,
    topics: encode('stories.topics', g.topics),
    spread: g.spread,
    reasons: encode('stories.reasons', g.reasons),
    status: 'new',
    assignee_user_id: null,
    detected_at: detectedAt,
    last_activity_at: detectedAt,
    unlocked_at: null,
    created_at: now,
  };
  const articles: Insertable<DB['articles']> = {
    id: newId('art'),
    story_id: storyId,
    source_key: 's1',
    url: article.url,
    canonical_url: article.canonical_url ?? article.url,
    publisher: article.publisher,
    title: article.title,
    published_at: article.published_at,
    type: article.type ?? 'news',
    text: article.text,
    language: languageOf(article),
    charset: article.charset ?? null,
    sentiment: article.sentiment ?? null,
    // Only when set: rows built for a schema before migration 0022 still insert.
    ...(article.undated && { undated: 1 }),
    ...(article.opinion && { opinion: 1 }),
    ...(article.author && { author: article.author }),
    created_at: now,
  };
  const advisories: Insertable<DB['advisories']> = {
    id: advisoryId,
    story_id: storyId,
    version: 1,
    kind: 'live',
    status: 'ready',
    assessment: g.assessment,
    urgency: g.urgency,
    spread: g.spread,
    schema: 'advisory.v1',
    executive_summary: encode('advisories.executive_summary', g.executiveSummary),
    summary_basis: encode('advisories.summary_basis', g.summaryBasis),
    diff: null,
    context: null,
    generator: generated.generator,
    requested_at: null,
    created_at: now,
    applied_at: now,
  };
  const phases: Insertable<DB['phases']>[] = g.phases.map((p, i) => ({
    id: newId('pha'),
    advisory_id: advisoryId,
    number: i + 1,
    title: p.title,
    actions: encode('phases.actions', p.actions),
    status: 'open',
    assignee_user_id: null,
    done_by: null,
    done_at: null,
    comment: null,
  }));
  const audit: AuditEntry = {
    accountId: brand.account_id,
    brandId: brand.id,
    storyId,
    actor,
    action: 'story.created',
    details: { event_uri: eventUri, url: article.url },
    at: now,
  };
  const story_documents = newStoryDocument({
    storyId,
    brandId: brand.id,
    title: article.title,
    summary: g.executiveSummary,
    language: articles.language ?? null,
    sentiment: articles.sentiment ?? null,
    at: now,
  });
  const coverage = coverageRows({
    brandId: brand.id,
    at: detectedAt,
    severity: g.severity,
    topics: g.topics,
    publisher: article.publisher,
    type: articles.type,
    sentiment: articles.sentiment ?? null,
  });
  return {
    eventUri,
    stories,
    articles,
    advisories,
    phases,
    story_documents,
    coverage,
    audit,
    audit_log: auditRow(audit),
  };
}

/**
 * Turns one article into a new story of the brand, with a locked live advisory, in one
 * transaction: either the whole story exists afterwards or nothing does. A story of the
 * brand that already holds the article's URL is answered instead (`existing`), checked
 * under the brand's lock. Otherwise always a new story (an operator's `brs story import`
 * asks for one); monitored articles go through ingestArticle, which first looks for the
 * story of their event.
 */
export async function importStory(
  app: AppContext,
  {
    brand,
    article: input,
    actor,
    detectedAt = app.clock.now().toISOString(),
  }: {
    brand: BrandRef & {
      host: string;
      name: string;
      aliases?: string | null;
      match_policy?: string | null;
    };
    article: ArticleInput;
    actor: string;
    detectedAt?: string;
  },
): Promise<{ event_uri: string; existing?: true }> {
  const terms = brandTermsOf(brand);
  // Its language chooses the signal lists it is scored with (docs/pipeline.md, "Language").
  const article = withJudgement(input, terms);
  if (!namesBrand(`${article.title}\n${article.text}`, terms)) {
    throw invalid('article: brand not mentioned');
  }
  // Outside the transaction: a model may take seconds, and holds nothing meanwhile.
  const generated = await app.advisor.generate([firstSource(article)], terms);
  const rows = buildStoryRows({
    brand,
    article,
    actor,
    detectedAt,
    now: app.clock.now().toISOString(),
    generated,
  });
  return inTransaction(app, async (app) => {
    const trx = app.db;
    // Two workers holding the same article cannot both store it.
    await lockRow(trx, 'brands', { id: brand.id });
    const held = await storyHolding(trx, brand.id, [
      article.url,
      article.canonical_url ?? article.url,
    ]);
    if (held) return { event_uri: held, existing: true };
    await trx.insertInto('stories').values(rows.stories).execute();
    await trx.insertInto('articles').values(rows.articles).execute();
    await trx.insertInto('advisories').values(rows.advisories).execute();
    await trx.insertInto('phases').values(rows.phases).execute();
    await trx.insertInto('story_documents').values(rows.story_documents).execute();
    await addCoverage(trx, rows.coverage);
    await queueAlertCheck(
      trx,
      { id: rows.stories.id, brandId: brand.id, accountId: brand.account_id },
      'created',
      rows.stories.created_at,
    );
    await trx.insertInto('audit_log').values(rows.audit_log).execute();
    await queueEvent(trx, rows.audit);
    return { event_uri: rows.eventUri };
  });
}
