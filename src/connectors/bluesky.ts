/**
 * Bluesky, read from Jetstream (github.com/bluesky-social/jetstream): every post, like and
 * repost on the network as JSON over one WebSocket, which the brand matcher filters for
 * all brands at once (domain/bluesky-stream.ts). Bluesky's full-text search no longer
 * answers anonymous requests, and Bluesky asks tools that watch the network to read its
 * stream instead (docs/sources.md). No key. The cursor is Jetstream's: the time, in
 * microseconds, of the last event read; a reader that resumes there misses nothing.
 */

/** What the stream is asked for: posts, and the likes and reposts that give them reach. */
const COLLECTIONS = ['app.bsky.feed.post', 'app.bsky.feed.like', 'app.bsky.feed.repost'];

/** The stream's address, from the cursor on (none: from now). */
export function jetstreamUrl(base: string, cursor: string | null): string {
  const url = new URL(base);
  for (const c of COLLECTIONS) url.searchParams.append('wantedCollections', c);
  if (cursor) url.searchParams.set('cursor', cursor);
  return url.toString();
}

export type JetEvent =
  | {
      kind: 'post';
      time_us: number;
      uri: string;
      /** The post's page on bsky.app (a DID works where a handle would). */
      url: string;
      author: string;
      text: string;
      links: string[];
      published_at: string;
      /** The post it answers: a reply counts as reach for it. */
      reply_to: string | null;
    }
  | { kind: 'reaction'; time_us: number; subject: string; by: string }
  | { kind: 'other'; time_us: number };

/**
 * One event of the stream read; null for what is not an event (a malformed line). A post's
 * text is its own and its link card's title and description (a shared article's headline
 * names the brand more often than the words around it).
 */
export function readJetstreamEvent(raw: string): JetEvent | null {
  let e: Raw;
  try {
    e = JSON.parse(raw) as Raw;
  } catch {
    return null;
  }
  if (!e || typeof e.time_us !== 'number' || typeof e.did !== 'string') return null;
  const time_us = e.time_us;
  const c = e.kind === 'commit' ? e.commit : undefined;
  if (c?.operation !== 'create' || !c.record || typeof c.rkey !== 'string') {
    return { kind: 'other', time_us };
  }
  const r = c.record;
  if (c.collection === 'app.bsky.feed.like' || c.collection === 'app.bsky.feed.repost') {
    const subject = r.subject?.uri;
    return typeof subject === 'string'
      ? { kind: 'reaction', time_us, subject, by: e.did }
      : { kind: 'other', time_us };
  }
  if (c.collection !== 'app.bsky.feed.post' || typeof r.text !== 'string') {
    return { kind: 'other', time_us };
  }
  const external = r.embed?.external;
  const card = [external?.title, external?.description]
    .filter((t): t is string => typeof t === 'string' && t.trim() !== '')
    .join('\n');
  const links = [
    ...(r.facets ?? []).flatMap((f) =>
      (f.features ?? [])
        .filter((x) => x.$type === 'app.bsky.richtext.facet#link' && typeof x.uri === 'string')
        .map((x) => x.uri as string),
    ),
    ...(typeof external?.uri === 'string' ? [external.uri] : []),
  ].filter((u) => /^https?:\/\//i.test(u));
  const created = typeof r.createdAt === 'string' ? Date.parse(r.createdAt) : Number.NaN;
  return {
    kind: 'post',
    time_us,
    uri: `at://${e.did}/app.bsky.feed.post/${c.rkey}`,
    url: `https://bsky.app/profile/${e.did}/post/${c.rkey}`,
    author: e.did,
    text: card ? `${r.text}\n\n${card}` : r.text,
    links: [...new Set(links)],
    published_at: new Date(
      Number.isNaN(created) ? Math.floor(time_us / 1000) : created,
    ).toISOString(),
    reply_to: typeof r.reply?.parent?.uri === 'string' ? r.reply.parent.uri : null,
  };
}

/** The account that made a post, from its at:// address. */
export const authorOf = (uri: string) => /^at:\/\/([^/]+)\//.exec(uri)?.[1] ?? '';

interface Raw {
  did?: unknown;
  time_us?: unknown;
  kind?: unknown;
  commit?: {
    operation?: unknown;
    collection?: unknown;
    rkey?: unknown;
    record?: {
      text?: unknown;
      createdAt?: unknown;
      subject?: { uri?: unknown };
      reply?: { parent?: { uri?: unknown } };
      facets?: { features?: { $type?: unknown; uri?: unknown }[] }[];
      embed?: { external?: { uri?: unknown; title?: unknown; description?: unknown } };
    };
  };
}
