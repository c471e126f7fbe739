import type { z } from 'zod';
import type { Config } from '../config.js';
import type { BrandTerms } from '../pipeline/brand-matcher.js';

/**
 * Coverage the service finds itself (docs/sources.md): one module per service it asks,
 * each behind this interface. A connector says where to ask for a brand's coverage since
 * its cursor, and reads the answer into items; the poll job (domain/connectors.ts) does the
 * asking, the rate limits and the reading of each item into the pipeline.
 */
export interface Connector {
  id: ConnectorId;
  /** As the team sees it: "Google News". */
  name: string;
  /**
   * The requests for a brand's coverage since the cursor (null at the first poll): one
   * for a search; one per target for a connector that reads named things (each app's
   * reviews), or per instance (Mastodon's).
   */
  request(ask: Ask): string[];
  /** What `Accept` asks for. */
  accept: string;
  /**
   * Requests a minute its service allows this service (docs/sources.md); below one, a
   * quota by the day (YouTube's 100 searches: one request every 14 minutes).
   */
  perMinute: number;
  /**
   * The answer to one request read into items, newest first, and the cursor for the next
   * poll (the one it was asked with, for a service that cannot be asked "since"; with
   * several requests, each answer's reading is handed the cursor the one before left).
   * Throws on an answer it cannot read (a changed format), which the poll records.
   */
  parse(body: string, url: string, now: Date, cursor?: string | null): ConnectorPage;
  /** A keyed connector's headers that carry its key (CONNECTOR_KEYS), if its address does not. */
  authorize?: (key: string) => Record<string, string>;
  /**
   * A connector that reads named things the team sets per brand (the App Store apps, the
   * YouTube channels, the Trustpilot page): what one is, and its form. Without any, the
   * connector waits, idle, not failing.
   */
  targets?: { what: string; pattern: RegExp; example: string };
}

/** What a connector is asked to read for a brand. */
export interface Ask {
  /** Where its service is (configured; tests point it at a local server). */
  base: string;
  query: BrandQuery;
  cursor: string | null;
  now: Date;
  /** The brand's targets for a connector that has them; empty otherwise. */
  targets: readonly string[];
  /** The service's key, for a keyed connector; empty otherwise. */
  key: string;
}

export const CONNECTOR_IDS = [
  'google-news',
  'bing-news',
  'gdelt',
  'hacker-news',
  'reddit',
  'mastodon',
  'youtube',
  'app-store',
  'x',
  'youtube-search',
  'trustpilot',
  'bluesky',
] as const;
export type ConnectorId = (typeof CONNECTOR_IDS)[number];
/**
 * Read from one stream all brands share, not polled per brand: Bluesky's firehose
 * (domain/bluesky-stream.ts). Its rows switch it per brand and show how it does.
 */
export type StreamedId = 'bluesky';
export type PolledId = Exclude<ConnectorId, StreamedId>;
export const isPolled = (id: ConnectorId): id is PolledId => id !== 'bluesky';

/**
 * The connectors that need a key or a paid plan, and the variable that holds it: each is
 * off unless named in CONNECTORS, and named there it needs its key (docs/sources.md).
 */
export const CONNECTOR_KEYS: Partial<Record<ConnectorId, string>> = {
  x: 'X_BEARER_TOKEN',
  'youtube-search': 'YOUTUBE_API_KEY',
  trustpilot: 'TRUSTPILOT_API_KEY',
};

export interface ConnectorItem {
  /** What tells the connector it has seen the item before (a guid, an id, the URL). */
  key: string;
  /** The article's address; for a post, the post's. */
  url: string;
  title?: string;
  /** ISO date or time, when the service gives one. */
  published_at?: string;
  /**
   * Read as it is, with no page fetch: a post's own text, or a headline whose page the
   * service does not lead to (Google News); absent for a link to an article.
   */
  given?: {
    text: string;
    publisher: string;
    author: string | null;
    type: 'news' | 'forum' | 'social' | 'review';
    /** A post's points, likes and comments: it makes a story only with reach; null for news. */
    reach: number | null;
    /** The pages a post links to: one a story holds makes the post that story's source. */
    links?: string[];
    /**
     * About the brand by where it is (a review on the brand's own app or page), whether
     * or not its words name the brand: its title says whose it is.
     */
    about?: boolean;
  };
}

export interface ConnectorPage {
  items: ConnectorItem[];
  /** Where the next poll starts (a time, an id); null to keep the one held. */
  cursor: string | null;
}

/** A brand as a search query: its names and aliases, and the phrases its policy excludes. */
export interface BrandQuery {
  names: string[];
  exclude: string[];
}

export function brandQuery(terms: BrandTerms): BrandQuery {
  const names = [...new Set([terms.name, ...(terms.aliases ?? [])].map((n) => n.trim()))].filter(
    (n) => n.length >= 2,
  );
  return { names, exclude: [...(terms.match?.exclude ?? [])].filter((e) => e.trim()) };
}

/** `"Acme" OR "Acme Corp" -"Acme Road"`: the syntax Google News and Bing News share. */
export function orQuery(query: BrandQuery): string {
  const quote = (t: string) => `"${t.replace(/"/g, '')}"`;
  return [query.names.map(quote).join(' OR '), ...query.exclude.map((e) => `-${quote(e)}`)].join(
    ' ',
  );
}

/** Where each connector asks, as configured (tests point them at a local server). */
export const baseOf = (config: Config, id: ConnectorId) => config.connectorUrls[id];

/**
 * A JSON answer read against the shape the service documents; an answer that is not JSON
 * (an error page) or not that shape (a changed field) throws, naming the service, and the
 * poll records it. `notJson` words the first case (GDELT answers its errors as text).
 */
export function answerOf<T>(
  service: string,
  body: string,
  shape: z.ZodType<T>,
  notJson = () => `${service} answered with something other than JSON`,
): T {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new Error(notJson());
  }
  const parsed = shape.safeParse(json);
  if (!parsed.success)
    throw new Error(`${service} answered in a format this connector does not read`);
  return parsed.data;
}

/**
 * The cursor of a service that answers newest first and cannot be asked "after" (Hacker
 * News' search, Reddit's): `since`, the newest time read; while a burst larger than one
 * answer is read back, `until` (the oldest time read of it, what the next answer must be
 * older than), `after` (the service's own token for the next older answer, Reddit's) and
 * `next` (the burst's newest, the `since` once all of it is read). A bare number is a
 * `since` (what an earlier release kept).
 */
export interface BackCursor {
  since: number | null;
  until?: number;
  after?: string;
  next?: number;
}

export function readBack(cursor: string | null | undefined): BackCursor {
  if (!cursor) return { since: null };
  if (/^\d+$/.test(cursor)) return { since: Number(cursor) };
  try {
    const c = JSON.parse(cursor) as BackCursor;
    return typeof c === 'object' && c !== null ? c : { since: null };
  } catch {
    return { since: null };
  }
}

/**
 * The cursor after an answer: when it held all that was asked (or at a first poll, whose
 * backlog is history), `since` moves to the newest read; when more was left (a full answer
 * of newer items), the next poll asks for those older than the oldest read, down to
 * `since`, and only then moves on, so a burst between polls is read through.
 */
export function walkBack(
  c: BackCursor,
  page: { newest: number | null; oldest: number | null; complete: boolean; after?: string },
): string | null {
  const top = Math.max(c.next ?? 0, page.newest ?? 0, c.since ?? 0) || null;
  if (c.since === null || page.complete || page.oldest === null) {
    return top === null ? null : String(top);
  }
  return JSON.stringify({
    since: c.since,
    // Asked up to and including the oldest read (others of its second may not have fitted),
    // an answer that gets no older steps past it: a page of one second is read once.
    until: page.oldest === c.until ? page.oldest - 1 : page.oldest,
    next: top,
    ...(page.after && { after: page.after }),
  });
}
