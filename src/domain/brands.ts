import type { AppContext } from '../context.js';
import { withTransaction } from '../db/database.js';
import { AppError, conflict } from '../errors.js';
import { newId } from '../ids.js';
import { requireAccount } from './accounts.js';
import { writeAudit } from './audit.js';

/** A brand host is monitored by exactly one account; others reach it through delegations. */
export async function addBrand(
  app: AppContext,
  accountId: string,
  host: string,
  name: string | undefined,
  verified: boolean,
): Promise<string> {
  await requireAccount(app, accountId);
  const id = newId('brd');
  const now = app.clock.now().toISOString();
  const taken = await app.db
    .selectFrom('brands')
    .select('id')
    .where('host', '=', host)
    .executeTakeFirst();
  if (taken) throw conflict('host: this brand is already monitored');
  await withTransaction(app.db, async (trx) => {
    await trx
      .insertInto('brands')
      .values({
        id,
        account_id: accountId,
        host,
        name: name ?? defaultName(host),
        verified: verified ? 1 : 0,
        verified_at: verified ? now : null,
        aliases: '[]',
        created_at: now,
      })
      .execute();
    await writeAudit(trx, {
      accountId,
      brandId: id,
      actor: 'operator',
      action: 'brand.added',
      details: { host, verified },
      at: now,
    });
  });
  return id;
}

/** acme.com → Acme */
const defaultName = (host: string) => {
  const label = host.split('.')[0] ?? host;
  return label.charAt(0).toUpperCase() + label.slice(1);
};

export async function requireBrandByHost(app: AppContext, host: string) {
  const brand = await app.db
    .selectFrom('brands')
    .select(['id', 'account_id', 'host', 'name', 'verified', 'aliases'])
    .where('host', '=', host)
    .executeTakeFirst();
  if (!brand) throw new AppError('not_found', `brand ${host}: not found`);
  return brand;
}
