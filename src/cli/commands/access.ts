import type { Command } from 'commander';
import type { AppContext } from '../../context.js';
import { createKey, revokeKey } from '../../domain/api-key-admin.js';
import { requireBrandByHost } from '../../domain/brands.js';
import { grantDelegation, revokeDelegation } from '../../domain/delegations.js';
import { addShareGuest } from '../../domain/shares.js';
import { BrandHost, Role, TeammateEmail } from '../../operations/schemas.js';
import { parse } from '../args.js';
import { action } from '../command.js';

/** `brs` API keys, delegations and share guests. */
export function registerAccess(program: Command): void {
  const key = program.command('key').description('API keys');
  key
    .command('create')
    .requiredOption('--account <account>', 'account key')
    .requiredOption('--role <role>', 'owner, admin or member')
    .requiredOption('--scope <scope>', 'full, or a comma-separated list of brand hosts')
    .option('--name <name>', 'a name to recognise the key by')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { account: string; role: string; scope: string; name?: string }) => {
          const scope =
            o.scope === 'full' ? null : o.scope.split(',').map((h) => parse(BrandHost, h, 'scope'));
          return createKey(app, {
            accountId: o.account,
            role: parse(Role, o.role, 'role'),
            scope,
            name: o.name,
            actor: 'operator',
          });
        },
        (o) => `key ${o.id}\n${o.key}\n(the secret is shown once; store it now)`,
      ),
    );
  key
    .command('revoke')
    .requiredOption('--id <id>', 'key id')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { id: string }) => {
          await revokeKey(app, o.id, 'operator');
          return { ok: true };
        },
        () => 'revoked',
      ),
    );

  const delegation = program.command('delegation').description('delegations');
  // Granting and revoking name the same three things, which both domain functions take.
  const delegationChange = (
    command: Command,
    change: (
      app: AppContext,
      d: { partnerId: string; clientId: string; host: string; actor: string },
    ) => Promise<string>,
  ) =>
    command
      .requiredOption('--partner <account>', 'partner account key')
      .requiredOption('--client <account>', 'client account key')
      .requiredOption('--brand <host>', 'client brand host')
      .option('--json', 'print one JSON object')
      .action(
        action(
          async (app, o: { partner: string; client: string; brand: string }) => ({
            status: await change(app, {
              partnerId: o.partner,
              clientId: o.client,
              host: parse(BrandHost, o.brand, 'brand'),
              actor: 'operator',
            }),
          }),
          (o) => `delegation ${o.status}`,
        ),
      );
  delegationChange(delegation.command('grant'), grantDelegation);
  delegationChange(
    delegation
      .command('revoke')
      .description("revoke a partner's delegation, as the client does in the app"),
    revokeDelegation,
  );

  program
    .command('share')
    .description('story shares')
    .command('guest')
    .description('guests of a guests share (the portal manages them too)')
    .command('add')
    .requiredOption('--brand <host>', 'brand host')
    .requiredOption('--event <event_uri>', "the story's event_uri")
    .requiredOption('--email <email>', "the guest's email")
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { brand: string; event: string; email: string }) => {
          const brand = await requireBrandByHost(app, parse(BrandHost, o.brand, 'brand'));
          const email = parse(TeammateEmail, o.email, 'email');
          await addShareGuest(app, {
            access: { brand, relation: 'own' },
            eventUri: o.event,
            email,
            actor: 'operator',
            byAccount: brand.account_id,
          });
          return { ok: true, email };
        },
        (o) => `guest ${o.email} added`,
      ),
    );
}
