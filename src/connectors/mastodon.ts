import { decodeHTML } from 'entities';
import { z } from 'zod';
import { answerOf, type Connector, type ConnectorItem } from './connector.js';

/**
 * Mastodon: the public timeline of the brand's hashtag on each configured instance
 * (GET /api/v1/timelines/tag/:hashtag, anonymous where the instance allows public preview):
 * posts read as they are, with their reblogs, favourites and replies as their reach, or
 * their author's followers. The cursor holds, per instance, the newest status id read; the
 * next poll asks for those right after it (`min_id`, not `since_id`, which gives the newest
 * 40 and skips any between), so a busy tag is read through. A status federated to several
 * instances is one item (its `uri`). No key.
 */
export const mastodon: Connector = {
  id: 'mastodon',
  name: 'Mastodon',
  accept: 'application/json',
  perMinute: 30,
  request({ base, query, cursor }) {
    const tag = hashtagOf(query.names[0] ?? '');
    const read = cursorsOf(cursor);
    return instancesOf(base).map((instance) => {
      const id = read[instanceOf(instance) ?? ''] ?? read['*'];
      const since = id ? `&min_id=${encodeURIComponent(id)}` : '';
      return `${instance}/api/v1/timelines/tag/${encodeURIComponent(tag)}?limit=40${since}`;
    });
  },
  parse(body, url, _now, cursor = null) {
    const statuses = answerOf('Mastodon', body, Answer);
    const items: ConnectorItem[] = [];
    let newest: string | null = null;
    for (const s of statuses) {
      // Ids are ordered numbers as strings; compared by length, then by value.
      if (
        newest === null ||
        s.id.length > newest.length ||
        (s.id.length === newest.length && s.id > newest)
      ) {
        newest = s.id;
      }
      const text = textOf(s.content);
      // A status without a web address, or with one that is not http(s), is not shown.
      const host = s.url && /^https?:\/\//i.test(s.url) ? hostOf(s.url) : null;
      if (!text || !s.url || !host) continue;
      const engagement = s.reblogs_count + s.favourites_count + s.replies_count;
      items.push({
        key: s.uri,
        url: s.url,
        title: text.slice(0, 80),
        published_at: s.created_at,
        given: {
          text,
          publisher: `Mastodon (${host})`,
          author: s.account.acct,
          type: 'social',
          // A hundred followers count as one interaction: a post from a widely followed
          // account reaches people before anyone reacts to it.
          reach: Math.max(engagement, Math.floor((s.account.followers_count ?? 0) / 100)),
          links: linksOf(s.content),
        },
      });
    }
    const read = cursorsOf(cursor);
    const instance = instanceOf(url);
    if (newest === null || !instance) return { items, cursor };
    return { items, cursor: JSON.stringify({ ...read, [instance]: newest }) };
  },
};

/** MASTODON_URL: one instance or several, comma-separated. */
export const instancesOf = (base: string) =>
  base
    .split(',')
    .map((b) => b.trim().replace(/\/+$/, ''))
    .filter(Boolean);

/** The instance a timeline request went to: its origin. */
function instanceOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * The cursor: the newest status id read on each instance, by its origin. A bare id (a
 * release that read one instance) counts for each: Mastodon's ids grow with time on every
 * instance, so none asks for what came before it.
 */
function cursorsOf(cursor: string | null): Record<string, string> {
  if (!cursor) return {};
  if (/^\d+$/.test(cursor)) return { '*': cursor };
  try {
    const read = JSON.parse(cursor) as unknown;
    return read && typeof read === 'object' ? (read as Record<string, string>) : {};
  } catch {
    return {};
  }
}

const Answer = z.array(
  z.object({
    id: z.string(),
    uri: z.string(),
    url: z.string().nullish(),
    created_at: z.string(),
    content: z.string(),
    reblogs_count: z.number(),
    favourites_count: z.number(),
    replies_count: z.number(),
    account: z.object({ acct: z.string(), followers_count: z.number().nullish() }),
  }),
);

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
};

/** The pages a status links to: its links but mentions and hashtags (Mastodon's classes). */
function linksOf(html: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/<a\s[^>]*>/gi)) {
    const tag = m[0];
    if (/class="[^"]*\b(?:mention|hashtag)\b/i.test(tag)) continue;
    const href = /href="(https?:\/\/[^"]+)"/i.exec(tag)?.[1];
    if (href) out.push(decodeHTML(href));
  }
  return out;
}

/** "Acme Corp" as the hashtag people write: #acmecorp. */
export function hashtagOf(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[^\p{L}\p{N}_]/gu, '')
    .toLowerCase();
}

/** A status's HTML (paragraphs, links, mentions) as plain text. */
function textOf(html: string): string {
  return decodeHTML(
    html
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<\/p>\s*<p>/gi, '\n\n')
      .replace(/<[^>]+>/g, ''),
  ).trim();
}
