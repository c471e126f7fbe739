import type { Command } from 'commander';
import { seedDemo } from '../../demo/seed-demo.js';
import { listAudit } from '../../domain/audit.js';
import { requireBrandByHost } from '../../domain/brands.js';
import { serviceStatus } from '../../domain/status.js';
import { listOutbox } from '../../email/outbox.js';
import { BrandHost } from '../../operations/schemas.js';
import { parse } from '../args.js';
import { action, CliLimit, command } from '../command.js';

/** `brs` what the service wrote: its outbox and audit trail, its status; the demo data. */
export function registerRecords(program: Command): void {
  command(
    program,
    'outbox',
    'emails the service wrote, newest first (without SMTP_URL they stay here)',
  )
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

  command(program, 'audit', "a brand's audit trail, newest first")
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

  command(
    program,
    'status',
    'what to watch: job backlog and failures, webhook deliveries, failing connectors',
  ).action(
    action(
      async (app) => serviceStatus(app),
      (o) => {
        const s = o as Awaited<ReturnType<typeof serviceStatus>>;
        return [
          `jobs      ${s.jobs.due} due (oldest ${s.jobs.oldest_due_seconds} s late), ${s.jobs.running} running, ${s.jobs.failed_last_day} failed in the last day`,
          `webhooks  ${s.webhooks.pending} waiting for a retry, ${s.webhooks.failed_last_day} given up in the last day`,
          `schema    ${s.schema.migrations} migrations, ${s.schema.pending} to apply`,
          `sources   ${s.connectors.failing === 0 ? 'no connector failing' : `${s.connectors.failing} connector${s.connectors.failing === 1 ? '' : 's'} failing for an hour or more`}`,
          ...s.connectors.first.map(
            (c) =>
              `  warning: ${c.host} ${c.connector} failing since ${c.failing_since}: ${c.last_error}`,
          ),
          ...(s.bluesky
            ? [
                `bluesky   ${s.bluesky.reading ? `read by one process, last event ${s.bluesky.last_event_at ?? 'none yet'}` : 'read by no process'}`,
                ...(s.bluesky.warning ? [`  warning: ${s.bluesky.warning}`] : []),
              ]
            : []),
        ].join('\n');
      },
    ),
  );

  command(program, 'demo', 'seed a complete demo data set').action(
    action(
      async (app) => ({ ...(await seedDemo(app)) }),
      (o) => JSON.stringify(o, null, 2),
    ),
  );
}
