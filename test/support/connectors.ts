import type { AppContext } from '../../src/context.js';
import { scheduleDueConnectors } from '../../src/domain/connector-schedule.js';

/** Makes only these brands' connectors due (the given ones, or all), none other. */
export async function makeConnectorsDue(app: AppContext, brandIds: string[], only?: string[]) {
  await app.db
    .updateTable('brand_connectors')
    .set({ next_poll_at: '2099-01-01T00:00:00.000Z' })
    .execute();
  let due = app.db
    .updateTable('brand_connectors')
    .set({ next_poll_at: '2000-01-01T00:00:00.000Z' })
    .where('brand_id', 'in', brandIds);
  if (only) due = due.where('connector', 'in', only);
  await due.execute();
}

/**
 * Makes only this brand's connectors due (the given ones, or all), then runs the polls as
 * two schedulers at the same instant would; answers how many polls they claimed.
 */
export async function pollConnectors(app: AppContext, brandId: string, only?: string[]) {
  await makeConnectorsDue(app, [brandId], only);
  // A new minute: every connector's window is open again (a 429's hold stays).
  await app.db.deleteFrom('connector_backoff').where('reason', '=', 'window').execute();
  const claimed = await Promise.all([scheduleDueConnectors(app), scheduleDueConnectors(app)]);
  await app.jobs.drain();
  return claimed.reduce((a, b) => a + b, 0);
}
