import type { Command } from 'commander';
import { subscribe } from '../../domain/billing-admin.js';
import { requireBrandByHost } from '../../domain/brands.js';
import { importStory } from '../../domain/import-story.js';
import { BrandHost } from '../../operations/schemas.js';
import { parse, readJsonFile } from '../args.js';
import { Article, action } from '../command.js';

/** `brs` story import and billing subscriptions. */
export function registerStories(program: Command): void {
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
          return importStory(app, { brand, article, actor: 'operator' });
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
}
