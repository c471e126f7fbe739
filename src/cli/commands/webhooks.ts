import type { Command } from 'commander';
import {
  addEndpoint,
  deleteEndpoint,
  listDeliveries,
  listEndpoints,
  rotateSecret,
  setEndpointPaused,
} from '../../webhooks/endpoints.js';
import { EVENT_TYPES } from '../../webhooks/events.js';
import { parse } from '../args.js';
import { action, CliLimit } from '../command.js';

/** `brs` partner webhook endpoints. */
export function registerWebhooks(program: Command): void {
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
          addEndpoint(app, {
            accountId: o.account,
            url: o.url,
            events: o.events.split(','),
            actor: 'operator',
          }),
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
                `${e.id}  ${e.disabled_at ? 'paused' : 'active'}  ${e.url}  ${e.events.join(',')}`,
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
  for (const [name, paused, what] of [
    ['pause', true, 'send nothing to an endpoint (events of the pause are not sent later)'],
    ['resume', false, 'send to a paused or disabled endpoint again'],
  ] as const) {
    webhook
      .command(name)
      .description(what)
      .requiredOption('--id <endpoint>', 'endpoint id')
      .option('--json', 'print one JSON object')
      .action(
        action(
          async (app, o: { id: string }) =>
            setEndpointPaused(app, { id: o.id, paused, actor: 'operator' }),
          (o) => `${o.id} ${o.paused ? 'paused' : 'active'}`,
        ),
      );
  }
  webhook
    .command('delete')
    .description('delete an endpoint with its deliveries and their log')
    .requiredOption('--id <endpoint>', 'endpoint id')
    .option('--json', 'print one JSON object')
    .action(
      action(
        async (app, o: { id: string }) => ({
          ok: true as const,
          ...(await deleteEndpoint(app, { id: o.id, actor: 'operator' })),
        }),
        (o) => `${o.id} deleted`,
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
}
