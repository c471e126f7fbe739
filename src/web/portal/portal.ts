import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { mountFormPages } from '../forms.js';
import { PAGE_HEADERS } from '../html.js';
import { mountActionPages } from './action-pages.js';
import { mountActivityPages } from './activity-pages.js';
import { mountAlertPages, mountUnsubscribe } from './alert-pages.js';
import { mountAuthPages } from './auth-pages.js';
import { mountBillingPages } from './billing-pages.js';
import { mountBrandPages } from './brand-pages.js';
import { mountConnectedAppPages } from './connected-app-pages.js';
import { mountExports } from './export.js';
import { mountKeyPages } from './key-pages.js';
import { mountLive } from './live.js';
import { mountMentionPages } from './mention-pages.js';
import { mountOverviewPage } from './overview-page.js';
import { mountPartnerPages } from './partner-pages.js';
import { mountProfilePages } from './profile-pages.js';
import { mountStoryList } from './story-list.js';
import { mountStoryPages } from './story-pages.js';
import { mountTeamPages } from './team-pages.js';
import { mountWebhookPages } from './webhook-pages.js';

/**
 * The web portal: server-rendered pages over the same operations as REST and MCP, run as
 * the signed-in user (docs/portal.md). Every action is a form and every page works
 * without JavaScript; one small script of this origin (live.ts) follows long operations
 * in place, so the CSP allows scripts and requests of this origin only, none inline.
 */
export function mountPortal(fastify: FastifyInstance, app: AppContext) {
  // Same-origin referrers, so the browser names this site in `Origin` on form posts (under
  // no-referrer it sends `null`); other sites still learn nothing.
  const headers = {
    ...PAGE_HEADERS,
    'content-security-policy': `${PAGE_HEADERS['content-security-policy']}; script-src 'self'; connect-src 'self'`,
    'referrer-policy': 'same-origin',
  };
  mountLive(fastify, app);
  mountExports(fastify, app);
  mountFormPages(fastify, headers, (pages) => {
    pages.get('/', async (_req, reply) => reply.redirect('/app', 303));
    mountAuthPages(pages, app);
    mountActionPages(pages, app);
    mountOverviewPage(pages, app);
    mountStoryList(pages, app);
    mountMentionPages(pages, app);
    mountAlertPages(pages, app);
    mountUnsubscribe(pages, app);
    mountStoryPages(pages, app);
    mountBrandPages(pages, app);
    mountTeamPages(pages, app);
    mountKeyPages(pages, app);
    mountPartnerPages(pages, app);
    mountActivityPages(pages, app);
    mountWebhookPages(pages, app);
    mountBillingPages(pages, app);
    mountConnectedAppPages(pages, app);
    mountProfilePages(pages, app);
  });
}
