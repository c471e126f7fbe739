import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { discoverFeeds, type FoundFeed } from './feed-discovery.js';
import { addFeed, listFeeds } from './feeds.js';

/**
 * The brand's own newsroom, found and followed when the brand is added (docs/sources.md,
 * "Finding a site's feeds"; issue 43): the feeds its site announces or holds at the usual
 * paths (a newsroom's, a blog's) and its news sitemap, at most two, news and press first,
 * never a comments feed, added as the brand's feeds by the monitor. A brand that already
 * has feeds (its team chose them) is left as it is. Its press releases then reach the
 * pipeline as any feed's items: a story when the headline names the brand.
 */

/** At most this many of the site's feeds are followed. */
const FOLLOWED = 2;

export async function followNewsroom(
  app: AppContext,
  brand: { id: string; account_id: string; host: string },
  site = `https://${brand.host}/`,
): Promise<{ followed: string[] }> {
  if ((await listFeeds(app, brand.id)).length > 0) return { followed: [] };
  let found: FoundFeed[];
  try {
    found = await discoverFeeds(app, site);
  } catch (e) {
    // A site that is no public address (refused) offers nothing to follow.
    if (e instanceof AppError) return { followed: [] };
    throw e;
  }
  const chosen = found
    .filter((f) => !/comment/i.test(`${f.url} ${f.title}`) && f.items > 0)
    .sort((a, b) => newsLike(b) - newsLike(a))
    .slice(0, FOLLOWED);
  const followed: string[] = [];
  for (const f of chosen) {
    try {
      followed.push((await addFeed(app, brand, f.url, 'monitor')).url);
    } catch (e) {
      // Added meanwhile (a retry, the team): nothing to do.
      if (!(e instanceof AppError)) throw e;
    }
  }
  return { followed };
}

/** A newsroom's or press office's feed before a blog's or a shop's. */
const newsLike = (f: FoundFeed) =>
  /news|press|media|announce/i.test(`${f.url} ${f.title}`) ? 1 : 0;

/** The job: the brand's newsroom sought once it is added, if the brand is still there. */
export async function followNewsroomJob(app: AppContext, payload: { brand: string }) {
  const brand = await app.db
    .selectFrom('brands')
    .select(['id', 'account_id', 'host'])
    .where('id', '=', payload.brand)
    .executeTakeFirst();
  if (!brand) return { status: 'brand gone' };
  return followNewsroom(app, brand);
}
