import type { AppContext } from '../context.js';
import { withTransaction } from '../db/database.js';
import { invalid } from '../errors.js';
import { newId } from '../ids.js';
import { type ArticleInput, generateAdvisory, mentionsBrand } from '../pipeline/builtin-advisor.js';
import { writeAudit } from './audit.js';

/**
 * Turns one article into a new story of the brand, with a locked live advisory, in one
 * transaction: either the whole story exists afterwards or nothing does.
 */
export async function importStory(
  app: AppContext,
  brand: { id: string; account_id: string; host: string; name: string },
  article: ArticleInput,
  actor: string,
  detectedAt = app.clock.now().toISOString(),
): Promise<{ event_uri: string }> {
  if (!mentionsBrand(`${article.title}\n${article.text}`, brand)) {
    throw invalid('article: brand not mentioned');
  }
  const g = generateAdvisory(article);
  const storyId = newId('sto');
  const eventUri = newId('evt');
  const advisoryId = newId('adv');
  const now = app.clock.now().toISOString();
  await withTransaction(app.db, async (trx) => {
    await trx
      .insertInto('stories')
      .values({
        id: storyId,
        event_uri: eventUri,
        brand_id: brand.id,
        title: article.title,
        severity: g.severity,
        topics: JSON.stringify(g.topics),
        spread: g.spread,
        status: 'new',
        assignee_user_id: null,
        detected_at: detectedAt,
        last_activity_at: detectedAt,
        unlocked_at: null,
        created_at: now,
      })
      .execute();
    await trx
      .insertInto('articles')
      .values({
        id: newId('art'),
        story_id: storyId,
        source_key: 's1',
        url: article.url,
        canonical_url: article.url,
        publisher: article.publisher,
        title: article.title,
        published_at: article.published_at,
        type: article.type ?? 'news',
        text: article.text,
        created_at: now,
      })
      .execute();
    await trx
      .insertInto('advisories')
      .values({
        id: advisoryId,
        story_id: storyId,
        version: 1,
        kind: 'live',
        status: 'ready',
        assessment: g.assessment,
        urgency: g.urgency,
        spread: g.spread,
        schema: 'advisory.v1',
        executive_summary: JSON.stringify(g.executiveSummary),
        summary_basis: JSON.stringify(g.summaryBasis),
        diff: null,
        context: null,
        generator: 'builtin',
        requested_at: null,
        created_at: now,
        applied_at: now,
      })
      .execute();
    await trx
      .insertInto('phases')
      .values(
        g.phases.map((p, i) => ({
          id: newId('pha'),
          advisory_id: advisoryId,
          number: i + 1,
          title: p.title,
          actions: JSON.stringify(p.actions),
          status: 'open',
          assignee_user_id: null,
          done_by: null,
          done_at: null,
          comment: null,
        })),
      )
      .execute();
    await writeAudit(trx, {
      accountId: brand.account_id,
      brandId: brand.id,
      storyId,
      actor,
      action: 'story.created',
      details: { event_uri: eventUri, url: article.url },
      at: now,
    });
  });
  return { event_uri: eventUri };
}
