import { Command, CommanderError } from 'commander';
import { loadConfig } from '../config.js';
import { registerAnalyze } from './analyze.js';
import { action, command } from './command.js';
import { registerAccess } from './commands/access.js';
import { registerAccounts } from './commands/accounts.js';
import { registerBrands } from './commands/brands.js';
import { registerRecords } from './commands/records.js';
import { registerStories } from './commands/stories.js';
import { registerWebhooks } from './commands/webhooks.js';
import { attachIo, type CliIo, processIo } from './io.js';
import { serve, start } from './serve.js';

/** The operator's command line: a file per command group under commands/. */
export function buildCli(io: CliIo = processIo(), json = process.argv.includes('--json')): Command {
  const program = new Command('brs').description('Stories service: operator command line');
  attachIo(program, io);
  // Usage errors are thrown instead of exiting, so `--json` callers get them as JSON too.
  program.exitOverride();
  program.configureOutput({
    writeErr: (s) => {
      if (!json) io.err(s);
    },
  });
  command(program, 'serve', 'start the server (migrating first, seeding nothing)').action(
    async (opts: { json?: boolean }) => serve(loadConfig(io.env), { json: !!opts.json }),
  );
  command(program, 'start', 'migrate, seed the demo data into an empty database, and serve').action(
    async (opts: { json?: boolean }) => start(loadConfig(io.env), { json: !!opts.json }),
  );
  command(program, 'migrate', 'bring the database schema up to date').action(
    action(
      async () => ({ ok: true }),
      () => 'database is up to date',
      { migrate: true },
    ),
  );
  registerAccounts(program);
  registerBrands(program);
  registerAccess(program);
  registerStories(program);
  registerWebhooks(program);
  registerRecords(program);
  registerAnalyze(program);
  return program;
}

/** Runs `brs` with these arguments; answers the exit status. */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const json = argv.includes('--json');
  try {
    await buildCli(io, json).parseAsync(argv);
    return io.exitCode;
  } catch (err) {
    // --help and --version are not failures.
    if (err instanceof CommanderError && err.exitCode === 0) return 0;
    const message = (err as Error).message.replace(/^error: /, '');
    if (json) io.out(`${JSON.stringify({ error: message })}\n`);
    else io.err(`brs: ${message}\n`);
    return 1;
  }
}
