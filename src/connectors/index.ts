import { appStore } from './app-store.js';
import { bingNews } from './bing-news.js';
import { type Connector, type ConnectorId, isPolled, type PolledId } from './connector.js';
import { gdelt } from './gdelt.js';
import { googleNews } from './google-news.js';
import { hackerNews } from './hacker-news.js';
import { mastodon } from './mastodon.js';
import { reddit } from './reddit.js';
import { trustpilot } from './trustpilot.js';
import { x } from './x.js';
import { youtube } from './youtube.js';
import { youtubeSearch } from './youtube-search.js';

/** Every connector, by id (docs/sources.md). */
export const CONNECTORS: Record<PolledId, Connector> = {
  'google-news': googleNews,
  'bing-news': bingNews,
  gdelt,
  'hacker-news': hackerNews,
  reddit,
  mastodon,
  youtube,
  'app-store': appStore,
  x,
  'youtube-search': youtubeSearch,
  trustpilot,
};

/** A connector as the team sees it: "Google News", "Bluesky". */
export const connectorName = (id: ConnectorId) => (isPolled(id) ? CONNECTORS[id].name : 'Bluesky');
