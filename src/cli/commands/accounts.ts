import type { Command } from 'commander';
import { addUser, createAccount, requireAccount } from '../../domain/accounts.js';
import {
  KitAccentColor,
  KitDisplayName,
  KitLogoUrl,
  readBrandKit,
  setBrandKit,
} from '../../domain/brand-kit.js';
import { removeMember } from '../../domain/team.js';
import { Role } from '../../operations/schemas.js';
import { Name, parse } from '../args.js';
import { action, Email, Plan } from '../command.js';

/** `brs` account create and brand-kit, user create. */
export function registerAccounts(program: Command): void {
  const account = program.command('account').description('accounts');
  account
    .command('create')
    .requiredOption('--name <name>', 'account name')
    .requiredOption('--plan <plan>', 'starter, pro, partner or agency')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { name: string; plan: string }) => ({
          account: await createAccount(
            app,
            parse(Name, o.name, 'name'),
            parse(Plan, o.plan, 'plan'),
          ),
        }),
        (o) => `account ${o.account}`,
      ),
    );

  account
    .command('brand-kit')
    .description(
      "show, or set, the name, logo and colour a partner's clients see on its invitations",
    )
    .requiredOption('--account <account>', 'account key')
    .option('--name <name>', 'display name, 1 to 80 characters ("" clears it)')
    .option('--logo-url <url>', 'https URL of the logo ("" clears it)')
    .option('--accent <colour>', 'accent colour, #rrggbb ("" clears it)')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { account: string; name?: string; logoUrl?: string; accent?: string }) => {
          // Every value is checked before anything is written.
          const patch = {
            display_name: o.name === undefined ? undefined : parse(KitDisplayName, o.name, 'name'),
            logo_url:
              o.logoUrl === undefined ? undefined : parse(KitLogoUrl, o.logoUrl, 'logo-url'),
            accent_color:
              o.accent === undefined ? undefined : parse(KitAccentColor, o.accent, 'accent'),
          };
          const unchanged = Object.values(patch).every((v) => v === undefined);
          if (unchanged) await requireAccount(app, o.account);
          const kit = unchanged
            ? await readBrandKit(app, o.account)
            : await setBrandKit(app, o.account, patch, 'operator');
          return { account: o.account, ...kit };
        },
        (o) =>
          [
            `display name  ${o.display_name ?? '(the account name)'}`,
            `logo URL      ${o.logo_url ?? '(none)'}`,
            `accent        ${o.accent_color ?? '(none)'}`,
          ].join('\n'),
      ),
    );

  const user = program.command('user').description('users');
  user
    .command('create')
    .requiredOption('--account <account>', 'account key')
    .requiredOption('--email <email>', 'email address')
    .requiredOption('--password <password>', 'password, at least 8 characters')
    .requiredOption('--role <role>', 'owner, admin or member')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { account: string; email: string; password: string; role: string }) => ({
          user: await addUser(app, {
            accountId: o.account,
            email: parse(Email, o.email, 'email'),
            password: o.password,
            role: parse(Role, o.role, 'role'),
          }),
        }),
        (o) => `user ${o.user}`,
      ),
    );
  user
    .command('remove')
    .description("take a user out of an account's team, or cancel their invitation")
    .requiredOption('--account <account>', 'account key')
    .requiredOption('--email <email>', 'email address')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { account: string; email: string }) => {
          const r = await removeMember(app, {
            accountId: o.account,
            email: parse(Email, o.email, 'email'),
            by: { userId: null, role: 'owner' },
            actor: 'operator',
          });
          return { ok: true as const, email: r.email, was: r.status };
        },
        (o) => `removed ${o.email} (${o.was})`,
      ),
    );
}
