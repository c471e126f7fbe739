import { XMLParser } from 'fast-xml-parser';
import type { Connector, ConnectorItem } from './connector.js';

/**
 * YouTube's channel feeds (www.youtube.com/feeds/videos.xml?channel_id=UC…): the 15 newest
 * videos of each channel the team names for the brand (a reviewer's, a trade channel's),
 * each read as it is, its title and description, with its likes or a hundredth of its
 * views as its reach. YouTube has no keyless search (its search feeds are gone): searching
 * all of YouTube is the keyed `youtube-search`. No key; no cursor (items seen are skipped).
 */
export const youtube: Connector = {
  id: 'youtube',
  name: 'YouTube channels',
  accept: 'application/atom+xml, application/xml;q=0.9, text/xml;q=0.8',
  perMinute: 30,
  targets: {
    what: 'YouTube channel id',
    pattern: /^UC[\w-]{22}$/,
    example: 'UCBR8-60-B28hp2BmDPdntcQ',
  },
  request({ base, targets }) {
    return targets.map((id) => `${base}/feeds/videos.xml?channel_id=${encodeURIComponent(id)}`);
  },
  parse(body) {
    // Feeds have no use for entity declarations; refusing them rules out expansion bombs.
    if (/<!ENTITY/i.test(body)) throw new Error('YouTube answered with entity declarations');
    let doc: Feed;
    try {
      doc = parser.parse(body) as Feed;
    } catch {
      throw new Error('YouTube answered with something other than a feed');
    }
    if (!doc.feed) throw new Error('YouTube answered in a format this connector does not read');
    const channel = text(doc.feed.author?.name) || text(doc.feed.title);
    const items: ConnectorItem[] = [];
    for (const e of list(doc.feed.entry)) {
      const id = text(e['yt:videoId']);
      const url = list(e.link).find((l) => l.rel === 'alternate')?.href ?? '';
      const title = text(e.title);
      if (!id || !/^https?:\/\//i.test(url) || !title) continue;
      const group = e['media:group'];
      const description = text(group?.['media:description']);
      const views = Number(group?.['media:community']?.['media:statistics']?.views ?? 0);
      const likes = Number(group?.['media:community']?.['media:starRating']?.count ?? 0);
      items.push({
        key: `yt:video:${id}`,
        url,
        title,
        published_at: text(e.published) || undefined,
        given: {
          text: description ? `${title}\n\n${description}` : title,
          publisher: `YouTube (${channel || 'a channel'})`,
          author: text(e.author?.name) || channel || null,
          type: 'social',
          // A hundred views count as one interaction, as a hundred followers do on Mastodon.
          reach: Math.max(likes || 0, Math.floor((views || 0) / 100)),
        },
      });
    }
    return { items, cursor: null };
  },
};

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  htmlEntities: true,
});

type Text = string | { '#text'?: string } | undefined;
interface Entry {
  'yt:videoId'?: Text;
  title?: Text;
  published?: Text;
  link?: { rel?: string; href?: string } | { rel?: string; href?: string }[];
  author?: { name?: Text };
  'media:group'?: {
    'media:description'?: Text;
    'media:community'?: {
      'media:starRating'?: { count?: string };
      'media:statistics'?: { views?: string };
    };
  };
}
interface Feed {
  feed?: { title?: Text; author?: { name?: Text }; entry?: Entry | Entry[] };
}

const list = <T>(v: T | T[] | undefined): T[] =>
  v === undefined ? [] : Array.isArray(v) ? v : [v];
const text = (v: Text) => (typeof v === 'string' ? v : (v?.['#text'] ?? '')).trim();
