import { type AppContext, inTransaction } from '../context.js';
import { AppError, invalid, notFound } from '../errors.js';
import { decodePayload, STORY_FROM_URL } from '../jobs/kinds.js';
import { enqueue } from '../jobs/queue.js';
import { dispatcherFor, FetchRefused } from '../net/safe-fetch.js';
import { readArticle } from '../pipeline/read-article.js';
import type { BrandAccess } from '../policy.js';
import { type IngestOutcome, ingestArticle } from './ingest-article.js';
import { storyHolding } from './stories.js';

export const FROM_URL_JOB = 'story.from_url';

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
  const existing = await storyHolding(app.db, access.brand.id, [url]);
  if (existing) return { ok: true, status: 'exists', event_uri: existing };
  const now = app.clock.now().toISOString();
  const job = await inTransaction(app, async (app) => {
    const id = await enqueue(
      app.db,
      STORY_FROM_URL,
      { brand: access.brand.id, url, actor },
      { now, maxAttempts: 3 },
    );
    await app.db
      .insertInto('story_requests')
      .values({ job_id: id, brand_id: access.brand.id, url, requested_by: actor, created_at: now })
      .execute();
    return id;
  });
  return { ok: true, status: 'queued', job };
}

export interface StoryRequest {
  job: string;
  url: string;
  brand: string;
  requested_at: string;
  state: 'queued' | 'running' | 'failed';
  /** Why no story was made (failed only). */
  reason: string | null;
}

/** How long the stories list shows a request that made no story. */
const FAILED_SHOWN_MS = 24 * 3_600_000;

/**
 * The stories being made from URLs for these brands, and those that could not be made in
 * the last day with why (brands by host): what the stories list shows above the stories.
 */
export async function recentRequests(app: AppContext, hosts: readonly string[]) {
  if (hosts.length === 0) return [];
  const since = new Date(app.clock.now().getTime() - FAILED_SHOWN_MS).toISOString();
  const rows = await app.db
    .selectFrom('story_requests as r')
    .innerJoin('jobs as j', 'j.id', 'r.job_id')
    .innerJoin('brands as b', 'b.id', 'r.brand_id')
    .select(['r.job_id', 'r.url', 'r.created_at', 'b.host', 'j.status', 'j.result'])
    .where('b.host', 'in', hosts)
    .where('r.created_at', '>', since)
    .orderBy('r.created_at', 'desc')
    .limit(20)
    .execute();
  return rows.flatMap((r): StoryRequest[] => {
    const base = { job: r.job_id, url: r.url, brand: r.host, requested_at: r.created_at };
    if (r.status === 'queued' || r.status === 'running')
      return [{ ...base, state: r.status, reason: null }];
    const outcome = r.result ? (JSON.parse(r.result) as FromUrlOutcome) : null;
    if (outcome?.status === 'done') return [];
    return [
      {
        ...base,
        state: 'failed' as const,
        reason: outcome?.status === 'failed' ? outcome.reason : 'the page could not be processed',
      },
    ];
  });
}

export type FromUrlOutcome =
  | { status: 'done'; event_uri: string; outcome: IngestOutcome['status'] }
  | { status: 'failed'; reason: string };

/**
 * The job: fetch (public hosts only), extract, detect the brand, and add the article to
 * the story of its event or start one (ingestArticle). A page that cannot be used is a finished job with a reason; only an outage of
 * our own (the database) throws, so the job is retried.
 */
export async function storyFromUrlJob(
  app: AppContext,
  payload: { brand: string; url: string; actor: string },
): Promise<FromUrlOutcome> {
  const brand = await app.db
    .selectFrom('brands')
    .select(['id', 'account_id', 'host', 'name', 'verified', 'aliases', 'match_policy'])
    .where('id', '=', payload.brand)
    .executeTakeFirst();
  if (!brand) return { status: 'failed', reason: 'brand no longer exists' };
  const now = app.clock.now();
  const read = await readArticle(app.config, payload.url, null, now);
  if (!read.ok) return { status: 'failed', reason: read.reason };
  try {
    const outcome = await ingestArticle(app, brand, read.article, payload.actor);
    return { status: 'done', event_uri: outcome.event_uri, outcome: outcome.status };
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
    .where('name', '=', STORY_FROM_URL.name)
    .executeTakeFirst();
  // Another brand's job is as unknown as a made-up id.
  if (!job || decodePayload(STORY_FROM_URL, job.payload).data?.brand !== access.brand.id) {
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
