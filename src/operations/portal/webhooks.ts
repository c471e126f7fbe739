import { z } from 'zod';
import { conflict, notFound } from '../../errors.js';
import { WEBHOOK_DELIVER } from '../../jobs/kinds.js';
import { enqueue } from '../../jobs/queue.js';
import { actorLabel } from '../../policy.js';
import {
  addEndpoint,
  listDeliveries,
  listEndpoints,
  rotateSecret,
} from '../../webhooks/endpoints.js';
import { definePortalOperation } from './define.js';

/** Webhook endpoints of the account (owners and admins, as `brs webhook` for operators). */
export const listWebhooks = definePortalOperation({
  access: { minRole: 'admin' },
  input: z.strictObject({}),
  async handler({ app, actor }) {
    return {
      endpoints: await listEndpoints(app, actor.accountId),
      deliveries: await listDeliveries(app, actor.accountId, 50),
    };
  },
});

export const addWebhook = definePortalOperation({
  access: { minRole: 'admin' },
  input: z.strictObject({
    url: z.string().trim().min(1, 'is required').max(2000),
    events: z.array(z.string()).min(1, 'choose at least one event type'),
  }),
  async handler({ app, actor }, input) {
    return addEndpoint(app, actor.accountId, input.url, input.events, actorLabel(actor));
  },
});

/** The endpoint of this account, or not found (another account's is as unknown). */
async function ownEndpoint(
  app: Parameters<typeof listEndpoints>[0],
  accountId: string,
  id: string,
) {
  const ep = await app.db
    .selectFrom('webhook_endpoints')
    .select(['id', 'disabled_at'])
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!ep) throw notFound();
  return ep;
}

export const rotateWebhookSecret = definePortalOperation({
  access: { minRole: 'admin' },
  input: z.strictObject({ id: z.string().min(1).max(100) }),
  async handler({ app, actor }, input) {
    await ownEndpoint(app, actor.accountId, input.id);
    return rotateSecret(app, input.id);
  },
});

/**
 * Sends a failed delivery again, once, now (one still being retried has its own next
 * attempt: sending it twice would only make duplicates). Every attempt stays in its log.
 */
export const retryDelivery = definePortalOperation({
  access: { minRole: 'admin' },
  input: z.strictObject({ id: z.string().min(1).max(100) }),
  async handler({ app, actor }, input) {
    const d = await app.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .select(['d.id', 'd.status', 'e.disabled_at'])
      .where('d.id', '=', input.id)
      .where('e.account_id', '=', actor.accountId)
      .executeTakeFirst();
    if (!d) throw notFound();
    if (d.status !== 'failed') throw conflict('delivery: only a failed delivery is sent again');
    if (d.disabled_at) throw conflict('delivery: its endpoint is disabled');
    const at = app.clock.now().toISOString();
    await app.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: at })
        .where('id', '=', d.id)
        .execute();
      await enqueue(trx, WEBHOOK_DELIVER, { delivery: d.id }, { now: at, maxAttempts: 1 });
    });
    return { ok: true };
  },
});
