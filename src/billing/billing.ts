import type { Config } from '../config.js';
import { LedgerBilling } from './ledger-billing.js';
import { StripeBilling } from './stripe-billing.js';

/** The price of one advisory unlock beyond the included units, in euro cents. */
export const UNIT_PRICE_CENTS = 1500;
export const CURRENCY = 'eur';

/**
 * Where money is recorded and collected. The ledger in our own database is the embedded
 * default; Stripe is the adapter for real payments. Both answer the same two questions,
 * and the ledger table records every unit either way.
 */
export interface Billing {
  readonly provider: 'ledger' | 'stripe';
  /**
   * Meters one unit on a subscription. `identifier` makes a retry count once at the
   * provider. Throws when the provider refuses or cannot be reached.
   */
  meter(req: { identifier: string; customer: string; at: Date }): Promise<{ externalId: string }>;
  /**
   * Reports a partner's billed quantity of client brands (the recalculation job).
   * `identifier` makes a retry count once.
   */
  reportClientBrands(req: {
    identifier: string;
    customer: string;
    quantity: number;
    at: Date;
  }): Promise<void>;
  /** Starts a one-off purchase; answers where the buyer confirms it. */
  startCheckout(req: {
    checkoutId: string;
    title: string;
    amountCents: number;
    returnUrl: string;
  }): Promise<{ url: string; externalId: string | null }>;
}

export function createBilling(config: Config): Billing {
  return config.billing.provider === 'stripe'
    ? new StripeBilling(config.billing)
    : new LedgerBilling(config.baseUrl);
}
