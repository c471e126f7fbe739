import type { ConnectorItem } from '../connectors/connector.js';
import type { AppContext } from '../context.js';
import { decode, encode } from '../db/json-columns.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import {
  brandWords,
  eventSimilarity,
  headlineTerms,
  terms as termsOfText,
  weighByPool,
} from '../pipeline/cluster.js';
import { withJudgement } from '../pipeline/judgement.js';
import { mentionOf } from '../pipeline/mentions.js';
import { brandTermsOf } from './brands.js';
import { type BrandRow, ingestArticle } from './ingest-article.js';
import type { ItemOutcome } from './polls.js';

/**
 * Posts that name a brand with too little reach to make a story alone (docs/sources.md,
 * "Reading an item"; issue 43): each is kept as one of the brand's mentions, shown with
 * the others, and several people posting about one thing make a story together: at
 * least TOGETHER posts from as many authors within a day, alike as two reports of one
 * event are (the clustering's measure). Their story takes them all as its sources.
 */

/** Posts from this many authors about one thing in a day make a story. */
export const TOGETHER = 5;
const TOGETHER_MS = 86_400_000;
/** The brand's quiet posts of the day compared at most. */
const COMPARED = 300;

type Post = ConnectorItem & { given: NonNullable<ConnectorItem['given']> };

/** A post with little reach: kept as a mention, and a story once enough people say it. */
export async function holdPost(
  app: AppContext,
  brand: BrandRow,
  item: Post,
  actor: string,
): Promise<ItemOutcome> {
  const terms = brandTermsOf(brand);
  const now = app.clock.now();
  const article = withJudgement(articleOf(item, brand, now), terms);
  if (!mentionOf(article, terms)) return { outcome: 'skipped: brand not mentioned' };
  await app.db
    .insertInto('quiet_mentions')
    .values({
      id: newId('qmt'),
      brand_id: brand.id,
      url: item.url,
      title: article.title,
      text: article.text,
      publisher: article.publisher,
      author: item.given.author,
      type: article.type ?? 'social',
      language: article.language ?? null,
      sentiment: article.sentiment ?? null,
      reach: item.given.reach ?? 0,
      links: encode('quiet_mentions.links', item.given.links ?? []),
      published_at: article.published_at,
      created_at: now.toISOString(),
    })
    .onConflict((oc) => oc.columns(['brand_id', 'url']).doNothing())
    .execute();
  const held = `held: little reach (${item.given.reach ?? 0})`;

  const day = await app.db
    .selectFrom('quiet_mentions')
    .selectAll()
    .where('brand_id', '=', brand.id)
    .where('created_at', '>=', new Date(now.getTime() - TOGETHER_MS).toISOString())
    .orderBy('created_at', 'desc')
    .limit(COMPARED)
    .execute();
  const self = day.find((p) => p.url === item.url);
  if (!self) return { outcome: held };
  const ignore = brandWords(terms);
  const weighed = weighByPool(day.map((p) => termsOfText(p, ignore)));
  const at = day.indexOf(self);
  const mine = { terms: weighed[at]!, headline: headlineTerms(self.title, ignore) };
  const alike = day.filter(
    (p, i) =>
      p === self ||
      eventSimilarity(mine, { terms: weighed[i]!, headline: headlineTerms(p.title, ignore) }) !==
        null,
  );
  // Posts with no author named are one voice, not one each.
  const authors = new Set(alike.map((p) => p.author ?? ''));
  if (authors.size < TOGETHER) return { outcome: held };

  // Enough people say one thing: a story, the oldest post first, each after it joining
  // that very story (as a post linking a page a story holds joins it), not clustered apart.
  let outcome: ItemOutcome = { outcome: held };
  let first: string | null = null;
  for (const p of alike.reverse()) {
    try {
      const r = await ingestArticle(
        app,
        brand,
        {
          url: p.url,
          title: p.title,
          publisher: p.publisher,
          published_at: p.published_at,
          text: p.text,
          type: p.type,
          author: p.author,
        },
        actor,
        [...(first ? [first] : []), ...decode('quiet_mentions.links', p.links)],
      );
      first ??= p.url;
      if (p.url === item.url) outcome = { outcome: r.status, event_uri: r.event_uri };
    } catch (e) {
      if (!(e instanceof AppError && e.code === 'invalid')) throw e;
    }
    await unhold(app, brand.id, p.url);
  }
  return outcome;
}

/** A post that became a story's source is a mention there, not here. */
export async function unhold(app: AppContext, brandId: string, url: string) {
  await app.db
    .deleteFrom('quiet_mentions')
    .where('brand_id', '=', brandId)
    .where('url', '=', url)
    .execute();
}

/**
 * A post as the pipeline reads an article: as it is, its title given or its first words; a
 * review titled as the brand's (it need not name its maker); dated today when undated.
 */
export function articleOf(item: Post, brand: { name: string }, now: Date) {
  const title = item.title?.trim() || item.given.text.slice(0, 80);
  return {
    url: item.url,
    title: item.given.about ? `${brand.name} review: ${title}` : title,
    publisher: item.given.publisher,
    published_at: (item.published_at ?? now.toISOString()).slice(0, 10),
    text: item.given.text,
    type: item.given.type,
    author: item.given.author,
  };
}
