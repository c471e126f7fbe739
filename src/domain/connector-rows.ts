import type { Config } from '../config.js';
import type { ConnectorId } from '../connectors/connector.js';
import type { Db } from '../db/database.js';

/**
 * The rows of a brand's connectors (domain/connectors.ts), apart so that adding a brand
 * (brands.ts) seeds them without importing the polling.
 */

/** The row id of a brand's connector: the same in every process, so seeding is idempotent. */
export const rowId = (brandId: string, connector: ConnectorId) => `${brandId}.${connector}`;

/** Gives a brand the configured connectors, on (or off) and due now (in the caller's transaction). */
export async function seedConnectors(
  db: Db,
  config: Config,
  brandId: string,
  at: string,
  enabled = true,
): Promise<void> {
  if (config.connectors.length === 0) return;
  await db
    .insertInto('brand_connectors')
    .values(
      config.connectors.map((connector) => ({
        id: rowId(brandId, connector),
        brand_id: brandId,
        connector,
        enabled: enabled ? 1 : 0,
        next_poll_at: at,
        created_at: at,
      })),
    )
    // Any conflict (the id or the pair): another process seeded it first.
    .onConflict((oc) => oc.doNothing())
    .execute();
}
