import { recalculateClientBrands } from '../billing/client-brands.js';
import { deliverAlertJob, evaluateAlertsJob, giveUpAlert } from '../domain/alerts.js';
import { streamPostJob } from '../domain/bluesky-stream.js';
import { pollConnectorJob } from '../domain/connectors.js';
import { backfillCoverageJob } from '../domain/coverage.js';
import { sendDigestJob } from '../domain/digests.js';
import { pollFeedJob } from '../domain/feeds.js';
import { settleReservationJob } from '../domain/metering.js';
import { followNewsroomJob } from '../domain/newsroom.js';
import { generateProposalJob, giveUpProposalJob } from '../domain/proposals.js';
import { backfillSearchJob } from '../domain/story-documents.js';
import { storyFromUrlJob } from '../domain/story-from-url.js';
import { sendEmailJob } from '../email/outbox.js';
import { deliverWebhookJob } from '../webhooks/deliver.js';
import {
  ADVISORY_PROPOSE,
  ALERT_DELIVER,
  ALERTS_EVALUATE,
  CLIENT_BRANDS,
  CONNECTOR_POLL,
  COVERAGE_BACKFILL,
  DIGEST_SEND,
  EMAIL_SEND,
  FEED_POLL,
  METERING_SETTLE,
  NEWSROOM_FOLLOW,
  SEARCH_BACKFILL,
  STORY_FROM_URL,
  STREAM_POST,
  WEBHOOK_DELIVER,
} from './kinds.js';
import { defineJob } from './queue.js';

/** Every kind of background job with the handler that runs it. */
export const jobDefinitions = [
  defineJob(EMAIL_SEND, sendEmailJob),
  defineJob(ADVISORY_PROPOSE, generateProposalJob, giveUpProposalJob),
  defineJob(CLIENT_BRANDS, recalculateClientBrands),
  defineJob(WEBHOOK_DELIVER, deliverWebhookJob),
  defineJob(STORY_FROM_URL, storyFromUrlJob),
  defineJob(FEED_POLL, pollFeedJob),
  defineJob(CONNECTOR_POLL, pollConnectorJob),
  defineJob(STREAM_POST, streamPostJob),
  defineJob(NEWSROOM_FOLLOW, followNewsroomJob),
  defineJob(METERING_SETTLE, settleReservationJob),
  defineJob(SEARCH_BACKFILL, backfillSearchJob),
  defineJob(COVERAGE_BACKFILL, backfillCoverageJob),
  defineJob(ALERTS_EVALUATE, evaluateAlertsJob),
  defineJob(ALERT_DELIVER, deliverAlertJob, giveUpAlert),
  defineJob(DIGEST_SEND, sendDigestJob),
];
