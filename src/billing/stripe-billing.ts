import Stripe from 'stripe';
import type { Config } from '../config.js';
import { type Billing, CURRENCY } from './billing.js';

type StripeConfig = Extract<Config['billing'], { provider: 'stripe' }>;

/**
 * Stripe through its official client: usage as billing meter events (the identifier
 * makes a retried event count once), one-off purchases as Checkout Sessions, fulfilled
 * from the verified `checkout.session.completed` webhook (see stripe-webhook.ts).
 */
export class StripeBilling implements Billing {
  readonly provider = 'stripe';
  readonly client: Stripe;

  constructor(private readonly config: StripeConfig) {
    const api = config.apiUrl ? new URL(config.apiUrl) : undefined;
    this.client = new Stripe(config.secretKey, {
      // An unlock waits on its metering call (outside its transaction, see metering.ts);
      // METER_LEASE_MS must outlast the timeout and the retry.
      maxNetworkRetries: 1,
      timeout: 8_000,
      ...(api && {
        host: api.hostname,
        port: Number(api.port || (api.protocol === 'https:' ? 443 : 80)),
        protocol: api.protocol.replace(':', '') as 'http' | 'https',
      }),
    });
  }

  /**
   * The identifier is the reservation's id, and the idempotency key too: a repeated call
   * (a retry, a settle after a crash) is answered as the first and counted once.
   */
  async meter(req: { identifier: string; customer: string; at: Date }) {
    const event = await this.client.billing.meterEvents.create(
      {
        event_name: this.config.meterEvent,
        identifier: req.identifier,
        timestamp: Math.floor(req.at.getTime() / 1000),
        payload: { stripe_customer_id: req.customer, value: '1' },
      },
      { idempotencyKey: `meter_${req.identifier}` },
    );
    return { externalId: event.identifier };
  }

  /**
   * The quantity goes to a second billing meter whose aggregation is "last": the
   * subscription's price for client brands bills the latest number reported.
   */
  async reportClientBrands(req: {
    identifier: string;
    customer: string;
    quantity: number;
    at: Date;
  }) {
    await this.client.billing.meterEvents.create(
      {
        event_name: this.config.clientBrandsMeterEvent,
        identifier: req.identifier,
        timestamp: Math.floor(req.at.getTime() / 1000),
        payload: { stripe_customer_id: req.customer, value: String(req.quantity) },
      },
      // A job run again after its instance died sends the same event: Stripe answers it
      // as the first (an identifier sent twice under new keys would be refused).
      { idempotencyKey: `meter_${req.identifier}` },
    );
  }

  async startCheckout(req: {
    checkoutId: string;
    title: string;
    amountCents: number;
    returnUrl: string;
  }) {
    const session = await this.client.checkout.sessions.create(
      {
        mode: 'payment',
        client_reference_id: req.checkoutId,
        metadata: { checkout_id: req.checkoutId },
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: CURRENCY,
              unit_amount: req.amountCents,
              product_data: { name: req.title },
            },
          },
        ],
        success_url: req.returnUrl,
        cancel_url: req.returnUrl,
      },
      { idempotencyKey: `checkout-${req.checkoutId}` },
    );
    if (!session.url) throw new Error('Stripe returned a Checkout Session without a URL');
    return { url: session.url, externalId: session.id };
  }

  /** The verified event of a webhook request; throws when the signature does not hold. */
  verifyEvent(rawBody: Buffer, signature: string): Stripe.Event {
    return this.client.webhooks.constructEvent(rawBody, signature, this.config.webhookSecret);
  }
}
