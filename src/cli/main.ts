import { Command, CommanderError } from 'commander';
import { z } from 'zod';
import { loadConfig } from '../config.js';
import { type AppContext, createContext } from '../context.js';
import { migrate, requireMigrated } from '../db/database.js';
import { seedDemo } from '../demo/seed-demo.js';
import { addUser, createAccount, requireAccount } from '../domain/accounts.js';
import { createKey, revokeKey } from '../domain/api-key-admin.js';
import { listAudit } from '../domain/audit.js';
import { subscribe } from '../domain/billing-admin.js';
import {
  KitAccentColor,
  KitDisplayName,
  KitLogoUrl,
  readBrandKit,
  setBrandKit,
} from '../domain/brand-kit.js';
import {
  addBrand,
  requireBrandByHost,
  setBrandAliases,
  setBrandMatchPolicy,
  shownMatchPolicy,
} from '../domain/brands.js';
import { grantDelegation, revokeDelegation } from '../domain/delegations.js';
import { addFeed, listFeeds, removeFeed } from '../domain/feeds.js';
import { importStory } from '../domain/import-story.js';
import { addShareGuest } from '../domain/shares.js';
import { listOutbox } from '../email/outbox.js';
import { invalid } from '../errors.js';
import { MemoryRateLimiter } from '../http/rate-limiter.js';
import { BrandHost, Role, TeammateEmail } from '../operations/schemas.js';
import { addEndpoint, listDeliveries, listEndpoints, rotateSecret } from '../webhooks/endpoints.js';
import { EVENT_TYPES } from '../webhooks/events.js';
import { registerAnalyze } from './analyze.js';
import { Name, parse, readJsonFile } from './args.js';
import { serve, start } from './serve.js';

const Plan = z.enum(
  ['starter', 'pro', 'partner', 'agency'],
  'must be starter, pro, partner or agency',
);
const Email = z.email('must be an email address').max(254);
const Article = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }),
  title: z.string().min(1).max(500),
  publisher: z.string().min(1).max(200),
  published_at: z.iso.date('must be a date, YYYY-MM-DD'),
  text: z.string().min(1).max(200_000),
  type: z
    .enum(['news', 'blog', 'social', 'forum', 'review', 'press_release', 'official', 'other'])
    .optional(),
});

const CliLimit = z.coerce
  .number()
  .int('must be an integer')
  .min(1, 'must be 1 to 1000')
  .max(1000, 'must be 1 to 1000');

type Printable = Record<string, unknown>;

/**
 * Runs one command and prints its result. The database must be migrated already
 * (requireMigrated); `migrate: true` is for `brs migrate` itself.
 */
function action<A extends unknown[]>(
  run: (app: AppContext, ...args: A) => Promise<Printable>,
  human: (out: Printable) => string,
  { migrate: migrates = false } = {},
) {
  return async (...args: A) => {
    const opts = args.at(-2) as { json?: boolean };
    const app = await createContext(loadConfig(), { limiter: new MemoryRateLimiter() });
    try {
      if (migrates) await migrate(app.db);
      else await requireMigrated(app.db);
      const out = await run(app, ...args);
      process.stdout.write(opts.json ? `${JSON.stringify(out)}\n` : `${human(out)}\n`);
    } finally {
      await app.close();
    }
  };
}

export function buildCli(): Command {
  const program = new Command('brs').description('Stories service: operator command line');
  // Usage errors are thrown instead of exiting, so `--json` callers get them as JSON too.
  program.exitOverride();
  program.configureOutput({
    writeErr: (s) => {
      if (!process.argv.includes('--json')) process.stderr.write(s);
    },
  });
  const command = (name: string, description: string) =>
    program.command(name).description(description).option('--json', 'print one JSON object');

  command('serve', 'start the server (migrating first, seeding nothing)').action(
    async (opts: { json?: boolean }) => serve(loadConfig(), { json: !!opts.json }),
  );
  command('start', 'migrate, seed the demo data into an empty database, and serve').action(
    async (opts: { json?: boolean }) => start(loadConfig(), { json: !!opts.json }),
  );
  command('migrate', 'bring the database schema up to date').action(
    action(
      async () => ({ ok: true }),
      () => 'database is up to date',
      { migrate: true },
    ),
  );

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

  program
    .command('user')
    .description('users')
    .command('create')
    .requiredOption('--account <account>', 'account key')
    .requiredOption('--email <email>', 'email address')
    .requiredOption('--password <password>', 'password, at least 8 characters')
    .requiredOption('--role <role>', 'owner, admin or member')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { account: string; email: string; password: string; role: string }) => ({
          user: await addUser(
            app,
            o.account,
            parse(Email, o.email, 'email'),
            o.password,
            parse(Role, o.role, 'role'),
          ),
        }),
        (o) => `user ${o.user}`,
      ),
    );

  const brand = program.command('brand').description('brands');
  brand
    .command('add')
    .requiredOption('--account <account>', 'account key')
    .requiredOption('--host <host>', 'brand host, e.g. acme.com')
    .option('--name <name>', 'display name')
    .option('--verified', 'mark the brand as verified')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { account: string; host: string; name?: string; verified?: boolean }) => {
          const host = parse(BrandHost, o.host, 'host');
          const name = o.name === undefined ? undefined : parse(Name, o.name, 'name');
          await addBrand(app, o.account, host, name, !!o.verified);
          return { brand: host };
        },
        (o) => `brand ${o.brand}`,
      ),
    );

  brand
    .command('aliases')
    .description('show, or with --set replace, the other names a brand is mentioned by')
    .requiredOption('--host <host>', 'brand host')
    .option('--set <aliases>', 'comma-separated aliases ("" clears them)')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { host: string; set?: string }) => {
          const b = await requireBrandByHost(app, parse(BrandHost, o.host, 'host'));
          const aliases =
            o.set === undefined
              ? (JSON.parse(b.aliases) as string[])
              : await setBrandAliases(app, b, o.set.split(','), 'operator');
          return { brand: b.host, aliases };
        },
        (o) => `${o.brand}: ${(o.aliases as string[]).join(', ') || '(no aliases)'}`,
      ),
    );

  brand
    .command('match')
    .description(
      "show, or with options change, how a brand's name is told from the same word meaning something else",
    )
    .requiredOption('--host <host>', 'brand host')
    .option('--strict <mode>', 'proper-noun context for the name: auto, on or off')
    .option('--exact-case <on|off>', 'count the name only as spelled')
    .option('--require <words>', 'comma-separated words the article must name one of ("" clears)')
    .option('--exclude <phrases>', 'comma-separated phrases that are not the brand ("" clears)')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (
          app,
          o: {
            host: string;
            strict?: string;
            exactCase?: string;
            require?: string;
            exclude?: string;
          },
        ) => {
          const b = await requireBrandByHost(app, parse(BrandHost, o.host, 'host'));
          const now = shownMatchPolicy(b.match_policy);
          const changes = [o.strict, o.exactCase, o.require, o.exclude].some(
            (v) => v !== undefined,
          );
          if (!changes) return { brand: b.host, match: now };
          const list = (v: string | undefined, was: readonly string[]) =>
            v === undefined ? was : v.split(',');
          const onOff = (v: string | undefined, was: boolean) => {
            if (v === undefined) return was;
            if (v !== 'on' && v !== 'off') throw invalid('exact-case: must be on or off');
            return v === 'on';
          };
          const match = await setBrandMatchPolicy(
            app,
            b,
            {
              strict: o.strict ?? now.strict,
              exactCase: onOff(o.exactCase, now.exactCase),
              require: list(o.require, now.require),
              exclude: list(o.exclude, now.exclude),
            },
            'operator',
          );
          return { brand: b.host, match };
        },
        (o) => {
          const m = o.match as ReturnType<typeof shownMatchPolicy>;
          return [
            `${o.brand}: strict ${m.strict}, exact case ${m.exactCase ? 'on' : 'off'}`,
            `  require: ${m.require.join(', ') || '(nothing)'}`,
            `  exclude: ${m.exclude.join(', ') || '(nothing)'}`,
          ].join('\n');
        },
      ),
    );

  const source = program.command('source').description("a brand's monitored RSS and Atom feeds");
  source
    .command('add')
    .requiredOption('--brand <host>', 'brand host')
    .requiredOption('--url <url>', 'feed URL (http or https, public host)')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { brand: string; url: string }) => {
          const b = await requireBrandByHost(app, parse(BrandHost, o.brand, 'brand'));
          return { source: await addFeed(app, b, o.url, 'operator') };
        },
        (o) => `source ${(o.source as { id: string }).id}`,
      ),
    );
  source
    .command('list')
    .requiredOption('--brand <host>', 'brand host')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { brand: string }) => {
          const b = await requireBrandByHost(app, parse(BrandHost, o.brand, 'brand'));
          return { sources: await listFeeds(app, b.id) };
        },
        (o) =>
          (o.sources as Awaited<ReturnType<typeof listFeeds>>)
            .map(
              (f) =>
                `${f.id}  ${f.url}  ${f.last_status ?? 'not polled yet'}${f.last_error ? `  (${f.last_error})` : ''}`,
            )
            .join('\n') || '(no sources)',
      ),
    );
  source
    .command('remove')
    .requiredOption('--brand <host>', 'brand host')
    .requiredOption('--id <id>', 'source id')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { brand: string; id: string }) => {
          const b = await requireBrandByHost(app, parse(BrandHost, o.brand, 'brand'));
          await removeFeed(app, b, o.id, 'operator');
          return { ok: true };
        },
        () => 'removed',
      ),
    );

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
  delegation
    .command('grant')
    .requiredOption('--partner <account>', 'partner account key')
    .requiredOption('--client <account>', 'client account key')
    .requiredOption('--brand <host>', 'client brand host')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { partner: string; client: string; brand: string }) => ({
          status: await grantDelegation(app, {
            partnerId: o.partner,
            clientId: o.client,
            host: parse(BrandHost, o.brand, 'brand'),
            actor: 'operator',
          }),
        }),
        (o) => `delegation ${o.status}`,
      ),
    );
  delegation
    .command('revoke')
    .description("revoke a partner's delegation, as the client does in the app")
    .requiredOption('--partner <account>', 'partner account key')
    .requiredOption('--client <account>', 'client account key')
    .requiredOption('--brand <host>', 'client brand host')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { partner: string; client: string; brand: string }) => ({
          status: await revokeDelegation(
            app,
            o.client,
            o.partner,
            parse(BrandHost, o.brand, 'brand'),
            'operator',
          ),
        }),
        (o) => `delegation ${o.status}`,
      ),
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
          await addShareGuest(
            app,
            { brand, relation: 'own' },
            o.event,
            email,
            'operator',
            brand.account_id,
          );
          return { ok: true, email };
        },
        (o) => `guest ${o.email} added`,
      ),
    );

  program
    .command('story')
    .description('stories')
    .command('import')
    .requiredOption('--brand <host>', 'brand host')
    .requiredOption(
      '--file <file>',
      'JSON file: url, title, publisher, published_at, text, optional type',
    )
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { brand: string; file: string }) => {
          const brand = await requireBrandByHost(app, parse(BrandHost, o.brand, 'brand'));
          const article = parse(Article, await readJsonFile(o.file, 'file'), 'file');
          return importStory(app, brand, article, 'operator');
        },
        (o) => `story ${o.event_uri}`,
      ),
    );

  program
    .command('billing')
    .description('billing')
    .command('subscribe')
    .requiredOption('--account <account>', 'account key')
    .option('--customer <id>', 'the Stripe customer to meter against (BILLING=stripe)')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { account: string; customer?: string }) => {
          await subscribe(app, o.account, 'operator', o.customer);
          return { ok: true };
        },
        () => 'subscribed',
      ),
    );

  const webhook = program.command('webhook').description('partner webhook endpoints');
  webhook
    .command('add')
    .description('register an endpoint (HTTPS, public host); prints its signing secret once')
    .requiredOption('--account <account>', 'account key')
    .requiredOption('--url <url>', 'HTTPS URL that receives the events')
    .requiredOption(
      '--events <types>',
      `comma-separated event types, or * (${EVENT_TYPES.join(', ')})`,
    )
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { account: string; url: string; events: string }) =>
          addEndpoint(app, o.account, o.url, o.events.split(','), 'operator'),
        (o) => `endpoint ${o.id}\nsecret ${o.secret}  (shown once)`,
      ),
    );
  webhook
    .command('list')
    .requiredOption('--account <account>', 'account key')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { account: string }) => ({ endpoints: await listEndpoints(app, o.account) }),
        (o) =>
          (
            o.endpoints as {
              id: string;
              url: string;
              events: string[];
              disabled_at: string | null;
            }[]
          )
            .map(
              (e) =>
                `${e.id}  ${e.disabled_at ? 'disabled' : 'enabled '}  ${e.url}  ${e.events.join(',')}`,
            )
            .join('\n'),
      ),
    );
  webhook
    .command('rotate')
    .description('a new signing secret; the previous one keeps signing for 24 hours')
    .requiredOption('--id <endpoint>', 'endpoint id')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { id: string }) => rotateSecret(app, o.id),
        (o) => `secret ${o.secret}  (the previous one signs until ${o.previous_secret_expires_at})`,
      ),
    );
  webhook
    .command('deliveries')
    .description("an account's deliveries, newest first, with every attempt")
    .requiredOption('--account <account>', 'account key')
    .option('--limit <n>', 'how many, 1 to 1000', '50')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { account: string; limit: string }) => ({
          deliveries: await listDeliveries(app, o.account, parse(CliLimit, o.limit, 'limit')),
        }),
        (o) =>
          (
            o.deliveries as {
              created_at: string;
              status: string;
              event_type: string;
              attempts: number;
              event_id: string;
            }[]
          )
            .map(
              (d) =>
                `${d.created_at}  ${d.status.padEnd(9)}  ${d.event_type.padEnd(20)}  ${d.attempts} attempt(s)  ${d.event_id}`,
            )
            .join('\n'),
      ),
    );

  command('outbox', 'emails the service wrote, newest first (without SMTP_URL they stay here)')
    .option('--limit <n>', 'how many, 1 to 1000', '50')
    .action(
      action(
        async (app, o: { limit: string }) => ({
          emails: await listOutbox(app, parse(CliLimit, o.limit, 'limit')),
        }),
        (o) =>
          (o.emails as { created_at: string; status: string; to: string; subject: string }[])
            .map((e) => `${e.created_at}  ${e.status.padEnd(7)}  ${e.to}  ${e.subject}`)
            .join('\n'),
      ),
    );

  command('audit', "a brand's audit trail, newest first")
    .requiredOption('--brand <host>', 'brand host')
    .option('--limit <n>', 'how many, 1 to 1000', '100')
    .action(
      action(
        async (app, o: { brand: string; limit: string }) => {
          const brand = await requireBrandByHost(app, parse(BrandHost, o.brand, 'brand'));
          return { entries: await listAudit(app, brand.id, parse(CliLimit, o.limit, 'limit')) };
        },
        (o) =>
          (o.entries as { at: string; actor: string; action: string; event_uri: string | null }[])
            .map((e) => `${e.at}  ${e.action.padEnd(24)}  ${e.actor}  ${e.event_uri ?? ''}`)
            .join('\n'),
      ),
    );

  command('demo', 'seed a complete demo data set').action(
    action(
      async (app) => ({ ...(await seedDemo(app)) }),
      (o) => JSON.stringify(o, null, 2),
    ),
  );
  registerAnalyze(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const json = argv.includes('--json');
  try {
    await buildCli().parseAsync(argv);
  } catch (err) {
    // --help and --version are not failures.
    if (err instanceof CommanderError && err.exitCode === 0) return;
    const message = (err as Error).message.replace(/^error: /, '');
    if (json) process.stdout.write(`${JSON.stringify({ error: message })}\n`);
    else process.stderr.write(`brs: ${message}\n`);
    process.exitCode = 1;
  }
}
