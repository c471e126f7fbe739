import { bingNews } from './bing-news.js';
import type { Connector, ConnectorId } from './connector.js';
import { gdelt } from './gdelt.js';
import { googleNews } from './google-news.js';
import { hackerNews } from './hacker-news.js';
import { mastodon } from './mastodon.js';
import { reddit } from './reddit.js';

/** Every connector, by id (docs/sources.md). */
export const CONNECTORS: Record<ConnectorId, Connector> = {
  'google-news': googleNews,
  'bing-news': bingNews,
  gdelt,
  'hacker-news': hackerNews,
  reddit,
  mastodon,
};
