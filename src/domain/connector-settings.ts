import type { Updateable } from 'kysely';
import { type ConnectorId, isPolled } from '../connectors/connector.js';
import { CONNECTORS, connectorName } from '../connectors/index.js';
import { type AppContext, inTransaction } from '../context.js';
import { decode, encode } from '../db/json-columns.js';
import type { DB } from '../db/schema.js';
import { invalid } from '../errors.js';
import { writeAudit } from './audit.js';
import { rowId, seedConnectors } from './connector-rows.js';

/**
 * A brand's connectors as the team and operators see and change them (docs/sources.md,
 * "Switching off", "What the team names", "Watching them"): how each is doing, switched on
 * or off, what it reads, and those failing for an hour.
 */

export interface ConnectorStatus {
  connector: ConnectorId;
  name: string;
  enabled: boolean;
  last_polled_at: string | null;
  last_status: string | null;
  last_error: string | null;
  failing_since: string | null;
  items_found: number;
  next_poll_at: string | null;
  /**
   * For a connector that reads named things: what one is ("App Store app id"), an
   * example, and those the team set (none: it waits); absent for a search.
   */
  targets?: { what: string; example: string; set: string[] };
}

/** A brand's connectors and how each is doing (`brs source list`, the brand page). */
export async function listConnectors(app: AppContext, brandId: string): Promise<ConnectorStatus[]> {
  const rows = await app.db
    .selectFrom('brand_connectors')
    .selectAll()
    .where('brand_id', '=', brandId)
    .orderBy('connector')
    .execute();
  // A connector taken out of CONNECTORS is not polled, so not shown.
  return rows
    .filter((r) => (app.config.connectors as readonly string[]).includes(r.connector))
    .map((r) => ({
      connector: r.connector as ConnectorId,
      name: connectorName(r.connector as ConnectorId),
      enabled: r.enabled === 1,
      last_polled_at: r.last_polled_at,
      last_status: r.last_status,
      last_error: r.last_error,
      failing_since: r.failing_since,
      items_found: r.items_found,
      // Bluesky is streamed, not polled: it has no next poll.
      next_poll_at: r.enabled === 1 && isPolled(r.connector as ConnectorId) ? r.next_poll_at : null,
      ...targetsOf(r.connector as ConnectorId, r.targets),
    }));
}

function targetsOf(connector: ConnectorId, raw: string | null) {
  const reads = isPolled(connector) ? CONNECTORS[connector].targets : undefined;
  if (!reads) return {};
  const set = raw ? decode('brand_connectors.targets', raw) : [];
  return { targets: { what: reads.what, example: reads.example, set } };
}

/** At most this many targets per connector and brand (each is a request per poll). */
const MAX_TARGETS = 10;

/**
 * Sets what a connector that reads named things reads for the brand (its apps, its
 * channels): ids in the connector's form, space or comma separated; none leaves it idle.
 * A target newly named starts as a first poll does: its backlog is history.
 */
export async function setConnectorTargets(
  app: AppContext,
  brand: { id: string; account_id: string },
  connector: string,
  given: string,
  actor: string,
): Promise<ConnectorStatus> {
  const known = (app.config.connectors as readonly string[]).includes(connector);
  const id = connector as ConnectorId;
  const reads = known && isPolled(id) ? CONNECTORS[id].targets : undefined;
  if (!reads) {
    const targeted = app.config.connectors.filter((c) => isPolled(c) && CONNECTORS[c].targets);
    throw invalid(
      `connector: must be one that reads named things: ${targeted.join(', ') || 'none is configured'}`,
    );
  }
  const targets = [...new Set(given.split(/[\s,]+/).filter(Boolean))];
  const wrong = targets.find((t) => !reads.pattern.test(t));
  if (wrong !== undefined) {
    throw invalid(
      `targets: "${wrong.slice(0, 80)}" is not ${/^[aeiou]/i.test(reads.what) ? 'an' : 'a'} ${reads.what} (like ${reads.example})`,
    );
  }
  if (targets.length > MAX_TARGETS) {
    throw invalid(`targets: at most ${MAX_TARGETS} for one connector`);
  }
  return changeConnector(app, brand, id, actor, {
    set: (at) => ({
      targets: targets.length > 0 ? encode('brand_connectors.targets', targets) : null,
      next_poll_at: at,
      first_read_at: null,
      last_status: null,
      last_error: null,
      failing_since: null,
    }),
    action: 'connector.targets_set',
    details: { connector, targets },
  });
}

/** One change to a brand's connector, audited, in one transaction; answers how it stands. */
async function changeConnector(
  app: AppContext,
  brand: { id: string; account_id: string },
  connector: ConnectorId,
  actor: string,
  change: {
    set: (at: string) => Updateable<DB['brand_connectors']>;
    action: string;
    details: Record<string, unknown>;
  },
): Promise<ConnectorStatus> {
  const at = app.clock.now().toISOString();
  await inTransaction(app, async (app) => {
    await seedConnectors(app.db, app.config, brand.id, at);
    await app.db
      .updateTable('brand_connectors')
      .set(change.set(at))
      .where('id', '=', rowId(brand.id, connector))
      .execute();
    await writeAudit(app.db, {
      accountId: brand.account_id,
      brandId: brand.id,
      actor,
      action: change.action,
      details: change.details,
      at,
    });
  });
  const status = (await listConnectors(app, brand.id)).find((c) => c.connector === connector);
  return status!;
}

/** Switches one of a brand's connectors on or off. */
export async function setConnector(
  app: AppContext,
  brand: { id: string; account_id: string },
  connector: string,
  enabled: boolean,
  actor: string,
): Promise<ConnectorStatus> {
  if (!(app.config.connectors as readonly string[]).includes(connector)) {
    throw invalid(
      `connector: must be one of ${app.config.connectors.join(', ') || 'none (CONNECTORS is empty)'}`,
    );
  }
  return changeConnector(app, brand, connector as ConnectorId, actor, {
    // Switched on again, it starts afresh: what was published while it was off is
    // history, as at a first poll, not a flood of stories.
    set: (at) => ({
      enabled: enabled ? 1 : 0,
      ...(enabled && { next_poll_at: at, cursor: null, first_read_at: null }),
    }),
    action: enabled ? 'connector.enabled' : 'connector.disabled',
    details: { connector },
  });
}

/**
 * Connectors failing for an hour or more, across brands (`brs status` warns of them): how
 * many, and the longest failing.
 */
export async function failingConnectors(app: AppContext) {
  const connectors = app.config.connectors;
  if (connectors.length === 0) return { count: 0, first: [] };
  const hourAgo = new Date(app.clock.now().getTime() - 3_600_000).toISOString();
  const failing = app.db
    .selectFrom('brand_connectors as c')
    .innerJoin('brands as b', 'b.id', 'c.brand_id')
    .where('c.enabled', '=', 1)
    .where('c.connector', 'in', connectors)
    .where('c.failing_since', 'is not', null)
    .where('c.failing_since', '<=', hourAgo);
  const [count, first] = await Promise.all([
    failing.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
    failing
      .select(['b.host', 'c.connector', 'c.failing_since', 'c.last_error'])
      .orderBy('c.failing_since')
      .limit(5)
      .execute(),
  ]);
  return { count: Number(count?.n ?? 0), first };
}
