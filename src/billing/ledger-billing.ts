import type { Billing } from './billing.js';

/**
 * The built-in ledger: nothing leaves the service. A metered unit is recorded as a ledger
 * row (by the caller), and a one-off purchase is confirmed on the service's own checkout
 * page, where the buyer explicitly confirms it; both are then invoiced from the ledger.
 */
export class LedgerBilling implements Billing {
  readonly provider = 'ledger';

  constructor(private readonly baseUrl: string) {}

  async meter(req: { identifier: string }) {
    return { externalId: req.identifier };
  }

  /** The ledger's record of the quantity is the subscription row itself. */
  async reportClientBrands() {}

  async startCheckout(req: { checkoutId: string }) {
    return { url: `${this.baseUrl}/billing/checkout/${req.checkoutId}`, externalId: null };
  }
}
