import { type AppContext, inTransaction } from '../context.js';
import { decode, encode } from '../db/json-columns.js';
import type { Assessment, Urgency } from '../db/schema.js';
import { invalid } from '../errors.js';
import { newId } from '../ids.js';
import { ADVISORY_PROPOSE } from '../jobs/kinds.js';
import { enqueue } from '../jobs/queue.js';
import {
  type ArticleInput,
  assessStory,
  generateAdvisory,
  type Source,
} from '../pipeline/builtin-advisor.js';
import {
  brandWords,
  EVENT_WINDOW_DAYS,
  findEvent,
  headlineTerms,
  terms as termsOfText,
  weighByPool,
} from '../pipeline/cluster.js';
import { withJudgement } from '../pipeline/judgement.js';
import { mentionOf } from '../pipeline/mentions.js';
import { SEVERITIES } from '../pipeline/taxonomy.js';
import { queueAlertCheck } from './alerts.js';
import { writeAudit } from './audit.js';
import { brandTermsOf } from './brands.js';
import { addCoverage, coverageRows } from './coverage.js';
import { importStory } from './import-story.js';
import { storyHolding, storyHoldingRow, storySources } from './stories.js';
import { refreshStoryDocument } from './story-documents.js';
import { lockStory } from './story-lock.js';

export type BrandRow = { id: string; account_id: string; host: string; name: string } & {
  aliases?: string | null;
  match_policy?: string | null;
};

export type IngestOutcome =
  | { status: 'created'; event_uri: string }
  | { status: 'joined'; event_uri: string; source_key: string }
  | { status: 'exists'; event_uri: string };

const shiftDays = (date: string, days: number) =>
  new Date(Date.parse(date.slice(0, 10)) + days * 86_400_000).toISOString().slice(0, 10);

/**
 * An article found by monitoring (a feed item, a URL someone sent): it is dropped unless
 * it mentions the brand, points at the story already holding it, joins the open story
 * of the same event, or starts a new story (docs/pipeline.md).
 */
export async function ingestArticle(
  app: AppContext,
  brand: BrandRow,
  input: ArticleInput,
  actor: string,
  /**
   * The pages a post (one with reach) links to: one an open story of the brand holds makes
   * the post that story's source (its spread), whatever its words.
   */
  links: readonly string[] = [],
): Promise<IngestOutcome> {
  const terms = brandTermsOf(brand);
  // Told once, for clustering and for the row.
  const article = withJudgement(input, terms);
  // Named only in the page's furniture, or the page is the brand's own: no story.
  if (!mentionOf(article, terms)) {
    throw invalid('article: brand not mentioned');
  }
  const urls = [article.url, article.canonical_url ?? article.url];
  const held = await storyHolding(app.db, brand.id, urls);
  if (held) return { status: 'exists', event_uri: held };
  const linked =
    links.length > 0 ? await storyHoldingRow(app.db, brand.id, links, { open: true }) : undefined;
  const byLink = linked && (await joinStory(app, brand, linked.id, article, actor));
  if (byLink) return byLink;

  // Closed stories are not reopened: new coverage after a close is a new story.
  const nearby = await app.db
    .selectFrom('articles as a')
    .innerJoin('stories as s', 's.id', 'a.story_id')
    .select(['a.story_id', 'a.title', 'a.text', 'a.language', 'a.published_at'])
    .where('s.brand_id', '=', brand.id)
    .where('s.status', '!=', 'closed')
    .where('a.published_at', '>=', shiftDays(article.published_at, -EVENT_WINDOW_DAYS))
    .where('a.published_at', '<=', shiftDays(article.published_at, EVENT_WINDOW_DAYS))
    .orderBy('a.published_at', 'desc')
    .limit(200)
    .execute();
  const ignore = brandWords(terms);
  // The brand's recent coverage is the corpus that tells an event's words from its own.
  const [own, ...theirs] = weighByPool([article, ...nearby].map((a) => termsOfText(a, ignore)));
  const event = findEvent(
    {
      published_at: article.published_at,
      terms: own!,
      headline: headlineTerms(article.title, ignore),
    },
    nearby.map((a, i) => ({
      story: a.story_id,
      published_at: a.published_at,
      terms: theirs[i]!,
      headline: headlineTerms(a.title, ignore),
    })),
  );
  const joined = event && (await joinStory(app, brand, event.story, article, actor));
  if (joined) return joined;
  const created = await importStory(app, { brand, article, actor });
  return created.existing
    ? { status: 'exists', event_uri: created.event_uri }
    : { status: 'created', event_uri: created.event_uri };
}

const ASSESSMENT_RANK: Record<Assessment, number> = {
  informational: 0,
  opportunity: 0,
  watch: 1,
  threat: 2,
  crisis: 3,
};
const URGENCY_RANK: Record<Urgency, number> = { low: 0, medium: 1, high: 2, immediate: 3 };
const higher = <T extends string>(rank: Record<T, number>, a: T, b: T): T =>
  rank[b] > rank[a] ? b : a;

/** The summary item that lists the coverage a story gained after its advisory was set. */
const COVERAGE = 'Also reported by ';

/**
 * Adds the article to the story as its next source, in one transaction: the story's
 * severity, topics and spread are scored again over all its sources, and the live
 * advisory follows. An advisory the built-in generator wrote and nobody has changed is
 * written again from all the sources; one a model wrote or a proposal replaced keeps its
 * text and gains a line naming the new coverage, and its assessment and urgency only ever
 * rise. The response plan is never rewritten under the team's feet: phases, their
 * assignees and what is done stay as they are.
 */
async function joinStory(
  app: AppContext,
  brand: BrandRow,
  storyId: string,
  article: ArticleInput,
  actor: string,
): Promise<IngestOutcome | null> {
  const at = app.clock.now().toISOString();
  const terms = brandTermsOf(brand);
  return inTransaction(app, async (app) => {
    const trx = app.db;
    await lockStory(trx, { id: storyId }, at);
    const story = await trx
      .selectFrom('stories')
      .select(['event_uri', 'status', 'severity'])
      .where('id', '=', storyId)
      .executeTakeFirstOrThrow();
    // Closed since we looked: the article starts a story of its own.
    if (story.status === 'closed') return null;
    // Another worker may have added the same article since we looked.
    const urls = [article.url, article.canonical_url ?? article.url];
    const held = await storyHolding(trx, brand.id, urls);
    if (held) return { status: 'exists' as const, event_uri: held };

    const stored = await storySources(trx, storyId);
    const next = 1 + Math.max(0, ...stored.map((s) => Number(s.source_key.slice(1)) || 0));
    const source: Source = { ...article, source_key: `s${next}` };
    const sources: Source[] = [...stored, source];
    await trx
      .insertInto('articles')
      .values({
        id: newId('art'),
        story_id: storyId,
        source_key: source.source_key,
        url: article.url,
        canonical_url: article.canonical_url ?? article.url,
        publisher: article.publisher,
        title: article.title,
        published_at: article.published_at,
        type: article.type ?? 'news',
        text: article.text,
        language: article.language ?? null,
        charset: article.charset ?? null,
        sentiment: article.sentiment ?? null,
        ...(article.undated && { undated: 1 }),
        ...(article.opinion && { opinion: 1 }),
        ...(article.author && { author: article.author }),
        created_at: at,
      })
      .execute();

    const scores = assessStory(sources, terms);
    await trx
      .updateTable('stories')
      .set({
        severity: scores.severity,
        topics: encode('stories.topics', scores.topics),
        spread: scores.spread,
        reasons: encode('stories.reasons', scores.reasons),
      })
      .where('id', '=', storyId)
      .execute();

    const live = await trx
      .selectFrom('advisories')
      .select(['id', 'version', 'generator', 'assessment', 'urgency', 'executive_summary'])
      .where('story_id', '=', storyId)
      .where('kind', '=', 'live')
      .executeTakeFirstOrThrow();
    const fresh = generateAdvisory(sources, terms);
    const untouched = live.generator === 'builtin' && live.version === 1;
    let summary = fresh.executiveSummary;
    if (!untouched) {
      const kept = decode('advisories.executive_summary', live.executive_summary).filter(
        (i) => !i.text.startsWith(COVERAGE),
      );
      const cited = new Set(kept.flatMap((i) => i.cites));
      const added = sources.filter((s) => !cited.has(s.source_key));
      const names = [...new Set(added.map((s) => s.publisher))];
      summary = [
        ...kept,
        { text: `${COVERAGE}${names.join(', ')}.`, cites: added.map((s) => s.source_key) },
      ];
    }
    await trx
      .updateTable('advisories')
      .set({
        spread: scores.spread,
        assessment: untouched
          ? fresh.assessment
          : higher(ASSESSMENT_RANK, live.assessment ?? fresh.assessment, fresh.assessment),
        urgency: untouched
          ? fresh.urgency
          : higher(URGENCY_RANK, live.urgency ?? fresh.urgency, fresh.urgency),
        executive_summary: encode('advisories.executive_summary', summary),
        summary_basis: encode('advisories.summary_basis', [
          ...new Set(summary.flatMap((i) => i.cites)),
        ]),
      })
      .where('id', '=', live.id)
      .execute();

    // A proposal written before this source joined would drop it when applied: it is
    // written again from all the sources.
    const pending = await trx
      .selectFrom('advisories')
      .select('id')
      .where('story_id', '=', storyId)
      .where('kind', '=', 'proposal')
      .where('status', 'in', ['generating', 'ready'])
      .executeTakeFirst();
    if (pending) {
      await trx.deleteFrom('phases').where('advisory_id', '=', pending.id).execute();
      await trx
        .updateTable('advisories')
        .set({ status: 'generating', diff: null })
        .where('id', '=', pending.id)
        .execute();
      await enqueue(trx, ADVISORY_PROPOSE, { advisory: pending.id }, { now: at });
    }

    await refreshStoryDocument(trx, storyId, at);
    if (SEVERITIES.indexOf(scores.severity) > SEVERITIES.indexOf(story.severity)) {
      await queueAlertCheck(
        trx,
        { id: storyId, brandId: brand.id, accountId: brand.account_id },
        'escalated',
        at,
      );
    }
    await addCoverage(
      trx,
      coverageRows({
        brandId: brand.id,
        at,
        severity: scores.severity,
        topics: scores.topics,
        publisher: article.publisher,
        type: article.type ?? 'news',
        sentiment: article.sentiment ?? null,
      }),
    );
    const entry = {
      accountId: brand.account_id,
      brandId: brand.id,
      storyId,
      actor,
      action: 'story.article_added',
      details: {
        event_uri: story.event_uri,
        url: article.url,
        source_key: source.source_key,
        severity: scores.severity,
        spread: scores.spread,
      },
      at,
    };
    await writeAudit(trx, entry);
    return { status: 'joined' as const, event_uri: story.event_uri, source_key: source.source_key };
  });
}
