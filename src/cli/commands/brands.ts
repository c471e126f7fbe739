import type { Command } from 'commander';
import { decode } from '../../db/json-columns.js';
import { deleteBrand } from '../../domain/brand-deletion.js';
import {
  addBrand,
  requireBrandByHost,
  setBrandAliases,
  setBrandMatchPolicy,
  shownMatchPolicy,
} from '../../domain/brands.js';
import {
  type ConnectorStatus,
  listConnectors,
  setConnector,
  setConnectorTargets,
} from '../../domain/connector-settings.js';
import { discoverFeeds, type FoundFeed } from '../../domain/feed-discovery.js';
import { addFeed, listFeeds, removeFeed } from '../../domain/feeds.js';
import { invalid } from '../../errors.js';
import { BrandHost } from '../../operations/schemas.js';
import { Name, parse } from '../args.js';
import { action } from '../command.js';

/** `brs` brands: adding one, its aliases and match policy, its feeds. */
export function registerBrands(program: Command): void {
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
          await addBrand(app, { accountId: o.account, host, name, verified: !!o.verified });
          return { brand: host };
        },
        (o) => `brand ${o.brand}`,
      ),
    );

  brand
    .command('delete')
    .description(
      'delete a brand with its stories, feeds and delegations (the ledger and audit stay)',
    )
    .requiredOption('--host <host>', 'brand host')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { host: string }) => {
          const found = await requireBrandByHost(app, parse(BrandHost, o.host, 'host'));
          return { ok: true as const, ...(await deleteBrand(app, found, 'operator')) };
        },
        (o) => `deleted ${o.host}: ${o.stories} stories, ${o.partners} partners`,
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
              ? decode('brands.aliases', b.aliases)
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

  const source = program
    .command('source')
    .description(
      "a brand's sources: the connectors that find its coverage, and its RSS and Atom feeds",
    );
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
          return {
            connectors: await listConnectors(app, b.id),
            sources: await listFeeds(app, b.id),
          };
        },
        (o) =>
          [
            ...(o.connectors as ConnectorStatus[]).map(
              (c) =>
                `${c.connector}  ${c.enabled ? 'on' : 'off'}  ${c.last_status ?? 'not polled yet'}  last ${c.last_polled_at ?? '-'}  next ${c.next_poll_at ?? '-'}  ${c.items_found} found${c.last_error ? `  (${c.last_error})` : ''}${c.targets ? `  reads: ${c.targets.set.join(', ') || `no ${c.targets.what} yet`}` : ''}`,
            ),
            ...(o.sources as Awaited<ReturnType<typeof listFeeds>>).map(
              (f) =>
                `${f.id}  ${f.url}  ${f.last_status ?? 'not polled yet'}${f.last_error ? `  (${f.last_error})` : ''}`,
            ),
          ].join('\n') || '(no sources)',
      ),
    );
  source
    .command('discover')
    .description(
      "find the feeds a site offers (the brand's newsroom, a trade title); --add adds them",
    )
    .requiredOption('--brand <host>', 'brand host')
    .requiredOption('--url <url>', 'the site, e.g. https://acme.com/ or acme.com')
    .option('--add', 'add every feed found to the brand')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { brand: string; url: string; add?: boolean }) => {
          const b = await requireBrandByHost(app, parse(BrandHost, o.brand, 'brand'));
          const feeds = await discoverFeeds(app, o.url);
          const added = [];
          if (o.add) {
            const have = new Set((await listFeeds(app, b.id)).map((f) => f.url));
            for (const f of feeds) {
              if (!have.has(f.url)) added.push(await addFeed(app, b, f.url, 'operator'));
            }
          }
          return { feeds, added };
        },
        (o) =>
          (o.feeds as FoundFeed[])
            .map((f) => `${f.url}  ${f.title}  (${f.via}, ${f.items} items)`)
            .join('\n') || '(no feed found)',
      ),
    );
  for (const [verb, on] of [
    ['on', true],
    ['off', false],
  ] as const) {
    source
      .command(verb)
      .description(`switch one of a brand's connectors ${verb}`)
      .requiredOption('--brand <host>', 'brand host')
      .requiredOption('--connector <id>', 'a connector id (brs source list shows them)')
      .option('--json', 'print one JSON object')
      .action(
        action(
          async (app, o: { brand: string; connector: string }) => {
            const b = await requireBrandByHost(app, parse(BrandHost, o.brand, 'brand'));
            return { connector: await setConnector(app, b, o.connector, on, 'operator') };
          },
          (o) => {
            const c = o.connector as ConnectorStatus;
            return `${c.connector} ${c.enabled ? 'on' : 'off'}`;
          },
        ),
      );
  }
  source
    .command('targets')
    .description(
      'name what a connector reads for a brand: App Store app ids, YouTube channel ids, a Trustpilot business unit id',
    )
    .requiredOption('--brand <host>', 'brand host')
    .requiredOption('--connector <id>', 'app-store, youtube or trustpilot')
    .requiredOption('--set <ids>', 'comma-separated; "" for none')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { brand: string; connector: string; set: string }) => {
          const b = await requireBrandByHost(app, parse(BrandHost, o.brand, 'brand'));
          return {
            connector: await setConnectorTargets(app, b, o.connector, o.set, 'operator'),
          };
        },
        (o) => {
          const c = o.connector as ConnectorStatus;
          return `${c.connector} reads ${c.targets?.set.join(', ') || 'nothing (idle)'}`;
        },
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
}
