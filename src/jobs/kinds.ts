import { z } from 'zod';

/**
 * Every kind of background job: the name it is stored under and the payload it takes,
 * checked when it is enqueued and parsed when it is claimed (queue.ts). Here, apart from
 * the handlers (handlers.ts), so that the modules that enqueue a job need not import the
 * code that runs it.
 */
export interface JobKind<P> {
  name: string;
  payload: z.ZodType<P>;
}

const kind = <P>(name: string, payload: z.ZodType<P>): JobKind<P> => ({ name, payload });

/** A payload as the jobs table keeps it: the one place it is encoded. */
export const encodePayload = <P>(_kind: JobKind<P>, payload: P): string => JSON.stringify(payload);

/** A stored payload read back against its kind's schema; a failure is a ZodError. */
export const decodePayload = <P>(kind: JobKind<P>, raw: string) =>
  kind.payload.safeParse(JSON.parse(raw));
const Id = z.string().min(1).max(100);

export const EMAIL_SEND = kind('email.send', z.strictObject({ email: Id }));
export const ADVISORY_PROPOSE = kind('advisory.propose', z.strictObject({ advisory: Id }));
export const CLIENT_BRANDS = kind('billing.client_brands', z.strictObject({ account: Id }));
export const WEBHOOK_DELIVER = kind('webhook.deliver', z.strictObject({ delivery: Id }));
export const FEED_POLL = kind('feed.poll', z.strictObject({ feed: Id }));
/** One brand's connector asked for new coverage (domain/connectors.ts). */
export const CONNECTOR_POLL = kind('connector.poll', z.strictObject({ source: Id }));
/** The feeds of a brand's own site (its newsroom) found and followed (domain/newsroom.ts). */
export const NEWSROOM_FOLLOW = kind('brand.newsroom', z.strictObject({ brand: Id }));
/** A Bluesky post that named brands and found reach, read for each (domain/bluesky-stream.ts). */
export const STREAM_POST = kind('stream.post', z.strictObject({ uri: z.string().min(1).max(500) }));
export const METERING_SETTLE = kind('billing.settle', z.strictObject({ reservation: Id }));
export const STORY_FROM_URL = kind(
  'story.from_url',
  z.strictObject({
    brand: Id,
    url: z.string().min(1).max(2048),
    actor: z.string().min(1).max(300),
  }),
);

/** Documents for the stories stored before search existed (migration 0018), a batch a job. */
export const SEARCH_BACKFILL = kind(
  'search.backfill',
  z.strictObject({
    after: z.string().max(100).optional(),
    /** Documents this pass has written so far. */
    wrote: z.number().int().min(0).optional(),
  }),
);

/** The alert rules checked against a story just created or escalated (domain/alerts.ts). */
export const ALERTS_EVALUATE = kind(
  'alerts.evaluate',
  z.strictObject({ story: Id, trigger: z.enum(['created', 'escalated']) }),
);
/** One alert sent on its channels. */
export const ALERT_DELIVER = kind('alert.deliver', z.strictObject({ alert: Id }));
/** One person's digest email for the period ending `until` (domain/digests.ts). */
export const DIGEST_SEND = kind(
  'digest.send',
  z.strictObject({ user: Id, until: z.string().max(40) }),
);

/** The mentions stored before migration 0019, counted once (domain/coverage.ts). */
export const COVERAGE_BACKFILL = kind(
  'coverage.backfill',
  z.strictObject({ before: z.string().max(40) }),
);
