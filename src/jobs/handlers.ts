import { recalculateClientBrands } from '../billing/client-brands.js';
import { FEED_POLL_JOB, pollFeedJob } from '../domain/feeds.js';
import { generateProposalJob } from '../domain/proposals.js';
import { FROM_URL_JOB, storyFromUrlJob } from '../domain/story-from-url.js';
import { sendEmailJob } from '../email/outbox.js';
import { deliverWebhookJob } from '../webhooks/deliver.js';
import type { JobHandler } from './queue.js';

/** Every kind of background job, by the name it is enqueued with. */
export const jobHandlers: Record<string, JobHandler> = {
  'email.send': sendEmailJob,
  'advisory.propose': generateProposalJob,
  'billing.client_brands': recalculateClientBrands,
  'webhook.deliver': deliverWebhookJob,
  [FROM_URL_JOB]: storyFromUrlJob,
  [FEED_POLL_JOB]: pollFeedJob,
};
