import { z } from 'zod';
import { actorLabel } from '../../policy.js';
import {
  addEndpoint,
  deleteEndpoint,
  listDeliveries,
  listEndpoints,
  retryDelivery as retry,
  rotateSecret,
  setEndpointPaused,
} from '../../webhooks/endpoints.js';
import { defineOperation } from '../operation.js';
import { Ok, Timestamp } from '../schemas.js';

/** Webhook endpoints of the account (owners and admins, as `brs webhook` for operators). */
export const listWebhooks = defineOperation({
  id: 'list_webhooks',
  summary: 'Webhook endpoints and their newest deliveries',
  input: z.strictObject({}),
  output: z.object({
    endpoints: z.array(
      z.object({
        id: z.string(),
        url: z.string(),
        events: z.array(z.string()),
        created_at: Timestamp,
        disabled_at: Timestamp.nullable(),
      }),
    ),
    deliveries: z.array(
      z.object({
        id: z.string(),
        endpoint_id: z.string(),
        event_id: z.string(),
        event_type: z.string(),
        status: z.string(),
        attempts: z.number().int(),
        last_status_code: z.number().int().nullable(),
        last_error: z.string().nullable(),
        next_attempt_at: Timestamp.nullable(),
        created_at: Timestamp,
        delivered_at: Timestamp.nullable(),
        attempt_log: z.array(
          z.object({
            attempt: z.number().int(),
            at: Timestamp,
            status_code: z.number().int().nullable(),
            error: z.string().nullable(),
            duration_ms: z.number(),
          }),
        ),
      }),
    ),
  }),
  access: { minRole: 'admin' },
  portal: true,
  async handler({ app, actor }) {
    return {
      endpoints: await listEndpoints(app, actor.accountId),
      deliveries: await listDeliveries(app, actor.accountId, 50),
    };
  },
});

export const addWebhook = defineOperation({
  id: 'add_webhook',
  summary: 'Add a webhook endpoint (its secret is shown once)',
  input: z.strictObject({
    url: z.string().trim().min(1, 'is required').max(2000),
    events: z.array(z.string()).min(1, 'choose at least one event type'),
  }),
  output: z.object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    secret: z.string(),
  }),
  access: { minRole: 'admin' },
  portal: true,
  handler: ({ app, actor }, input) =>
    addEndpoint(app, {
      accountId: actor.accountId,
      url: input.url,
      events: input.events,
      actor: actorLabel(actor),
    }),
});

export const rotateWebhookSecret = defineOperation({
  id: 'rotate_webhook_secret',
  summary: "Rotate an endpoint's signing secret",
  input: z.strictObject({ id: z.string().min(1).max(100) }),
  output: z.object({ id: z.string(), secret: z.string(), previous_secret_expires_at: Timestamp }),
  access: { minRole: 'admin' },
  portal: true,
  handler: ({ app, actor }, input) => rotateSecret(app, input.id, { accountId: actor.accountId }),
});

/** Sends a failed delivery again, once, now. */
export const retryDelivery = defineOperation({
  id: 'retry_webhook_delivery',
  summary: 'Send a failed webhook delivery again',
  input: z.strictObject({ id: z.string().min(1).max(100) }),
  output: z.object({ ok: Ok }),
  access: { minRole: 'admin' },
  portal: true,
  async handler({ app, actor }, input) {
    await retry(app, actor.accountId, input.id);
    return { ok: true };
  },
});

const EndpointId = z.strictObject({ id: z.string().min(1).max(100) });

/** Pauses an endpoint: nothing is sent to it, nor kept for it, until it is resumed. */
export const pauseWebhook = defineOperation({
  id: 'pause_webhook',
  summary: 'Pause a webhook endpoint',
  input: EndpointId,
  output: z.object({ id: z.string(), paused: z.boolean() }),
  access: { minRole: 'admin' },
  portal: true,
  handler: ({ app, actor }, input) =>
    setEndpointPaused(app, {
      accountId: actor.accountId,
      id: input.id,
      paused: true,
      actor: actorLabel(actor),
    }),
});

export const resumeWebhook = defineOperation({
  id: 'resume_webhook',
  summary: 'Resume a paused or disabled webhook endpoint',
  input: EndpointId,
  output: z.object({ id: z.string(), paused: z.boolean() }),
  access: { minRole: 'admin' },
  portal: true,
  handler: ({ app, actor }, input) =>
    setEndpointPaused(app, {
      accountId: actor.accountId,
      id: input.id,
      paused: false,
      actor: actorLabel(actor),
    }),
});

/** Deletes an endpoint, its deliveries and their log. */
export const deleteWebhook = defineOperation({
  id: 'delete_webhook',
  summary: 'Delete a webhook endpoint',
  input: EndpointId,
  output: z.object({ ok: Ok }),
  access: { minRole: 'admin' },
  portal: true,
  async handler({ app, actor }, input) {
    await deleteEndpoint(app, {
      accountId: actor.accountId,
      id: input.id,
      actor: actorLabel(actor),
    });
    return { ok: true };
  },
});
