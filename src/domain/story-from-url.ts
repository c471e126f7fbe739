import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import { AppError, invalid, notFound } from '../errors.js';
import { enqueue } from '../jobs/queue.js';
import { dispatcherFor, FetchRefused, safeFetch } from '../net/safe-fetch.js';
import { extractArticle } from '../pipeline/extract.js';
import type { BrandAccess } from '../policy.js';
import { importStory } from './import-story.js';

export const FROM_URL_JOB = 'story.from_url';

/** The story of this brand that already holds the article at `url`, if any. */
async function storyHolding(db: Db, brandId: string, url: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('articles as a')
    .innerJoin('stories as s', 's.id', 'a.story_id')
    .select('s.event_uri')
    .where('s.brand_id', '=', brandId)
    .where((eb) => eb.or([eb('a.url', '=', url), eb('a.canonical_url', '=', url)]))
    .executeTakeFirst();
  return row?.event_uri;
}

export type FromUrlAnswer =
  | { ok: true; status: 'queued'; job: string }
  | { ok: true; status: 'exists'; event_uri: string };

/**
 * Asks for a story from an article URL: when a story of the brand already holds the
 * article, the answer points at it and nothing is regenerated; otherwise a job reads the
 * page. A literal non-public address is refused at once; names are resolved and checked
 * by the job's fetch. Counts as a mention, never billed.
 */
export async function requestStoryFromUrl(
  app: AppContext,
  access: BrandAccess,
  url: string,
  actor: string,
): Promise<FromUrlAnswer> {
  try {
    dispatcherFor(app.config, new URL(url));
  } catch (e) {
    if (e instanceof FetchRefused) throw invalid(`url: ${e.message}`);
    throw e;
  }
  const existing = await storyHolding(app.db, access.brand.id, url);
  if (existing) return { ok: true, status: 'exists', event_uri: existing };
  const job = await enqueue(
    app.db,
    FROM_URL_JOB,
    { brand: access.brand.id, url, actor },
    { now: app.clock.now().toISOString(), maxAttempts: 3 },
  );
  return { ok: true, status: 'queued', job };
}

export type FromUrlOutcome =
  | { status: 'done'; event_uri: string; existing?: true }
  | { status: 'failed'; reason: string };

/**
 * The job: fetch (public hosts only), extract, detect the brand, generate and store the
 * story. A page that cannot be used is a finished job with a reason; only an outage of
 * our own (the database) throws, so the job is retried.
 */
export async function storyFromUrlJob(
  app: AppContext,
  payload: { brand: string; url: string; actor: string },
): Promise<FromUrlOutcome> {
  const brand = await app.db
    .selectFrom('brands')
    .select(['id', 'account_id', 'host', 'name', 'verified', 'aliases'])
    .where('id', '=', payload.brand)
    .executeTakeFirst();
  if (!brand) return { status: 'failed', reason: 'brand no longer exists' };
  let page: Awaited<ReturnType<typeof safeFetch>>;
  try {
    page = await safeFetch(app.config, payload.url, { headers: { accept: 'text/html' } });
  } catch (e) {
    if (e instanceof FetchRefused) return { status: 'failed', reason: e.message };
    throw e;
  }
  if (page.status !== 200)
    return { status: 'failed', reason: `the page answered HTTP ${page.status}` };
  const type = page.headers.get('content-type') ?? '';
  if (!/^(text\/html|application\/xhtml\+xml)\b/i.test(type)) {
    return {
      status: 'failed',
      reason: `not an HTML page (${type.split(';')[0] || 'no content type'})`,
    };
  }
  const article = extractArticle(page.body.toString('utf8'), page.url);
  if (!article) return { status: 'failed', reason: 'no readable article on the page' };
  // The canonical URL may name an article a story already holds.
  const existing = await storyHolding(app.db, brand.id, article.canonical_url);
  if (existing) return { status: 'done', event_uri: existing, existing: true };
  try {
    const { event_uri } = await importStory(
      app,
      brand,
      {
        url: page.url,
        canonical_url: article.canonical_url,
        title: article.title,
        publisher: article.publisher,
        published_at: (article.published_at ?? app.clock.now().toISOString()).slice(0, 10),
        text: article.text,
      },
      payload.actor,
    );
    return { status: 'done', event_uri };
  } catch (e) {
    if (e instanceof AppError && e.code === 'invalid') {
      return { status: 'failed', reason: e.message.replace(/^article: /, '') };
    }
    throw e;
  }
}

/** A from-url job of this brand, as its requester reads it back. */
export async function readStoryFromUrlJob(app: AppContext, access: BrandAccess, jobId: string) {
  const job = await app.db
    .selectFrom('jobs')
    .select(['status', 'payload', 'result', 'last_error'])
    .where('id', '=', jobId)
    .where('name', '=', FROM_URL_JOB)
    .executeTakeFirst();
  // Another brand's job is as unknown as a made-up id.
  if (!job || (JSON.parse(job.payload) as { brand: string }).brand !== access.brand.id) {
    throw notFound();
  }
  if (job.status === 'queued' || job.status === 'running') {
    return { status: job.status as 'queued' | 'running' };
  }
  if (job.status === 'done' && job.result) {
    const r = JSON.parse(job.result) as FromUrlOutcome;
    return r.status === 'done'
      ? { status: 'done' as const, event_uri: r.event_uri }
      : { status: 'failed' as const, reason: r.reason };
  }
  return { status: 'failed' as const, reason: 'the page could not be processed' };
}
