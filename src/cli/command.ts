import type { Command } from 'commander';
import { z } from 'zod';
import { loadConfig } from '../config.js';
import { type AppContext, createContext } from '../context.js';
import { migrate, requireMigrated } from '../db/database.js';
import { MemoryRateLimiter } from '../http/rate-limiter.js';
import { SourceType } from '../operations/schemas.js';
import { ioOf } from './io.js';

/** What the command groups share: option schemas, the action wrapper, `command`. */
export const Plan = z.enum(
  ['starter', 'pro', 'partner', 'agency'],
  'must be starter, pro, partner or agency',
);
export const Email = z.email('must be an email address').max(254);
export const Article = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }),
  title: z.string().min(1).max(500),
  publisher: z.string().min(1).max(200),
  published_at: z.iso.date('must be a date, YYYY-MM-DD'),
  text: z.string().min(1).max(200_000),
  type: SourceType.optional(),
});

export const CliLimit = z.coerce
  .number()
  .int('must be an integer')
  .min(1, 'must be 1 to 1000')
  .max(1000, 'must be 1 to 1000');

export type Printable = Record<string, unknown>;

/**
 * Runs one command and prints its result. The database must be migrated already
 * (requireMigrated); `migrate: true` is for `brs migrate` itself.
 */
export function action<A extends unknown[]>(
  run: (app: AppContext, ...args: A) => Promise<Printable>,
  human: (out: Printable) => string,
  { migrate: migrates = false } = {},
) {
  return async (...args: A) => {
    const opts = args.at(-2) as { json?: boolean };
    const io = ioOf(args.at(-1) as Command);
    const app = await createContext(loadConfig(io.env), { limiter: new MemoryRateLimiter() });
    try {
      if (migrates) await migrate(app.db);
      else await requireMigrated(app.db);
      const out = await run(app, ...args);
      io.out(opts.json ? `${JSON.stringify(out)}\n` : `${human(out)}\n`);
    } finally {
      await app.close();
    }
  };
}

/** A top-level command that takes --json, as every one does. */
export const command = (program: Command, name: string, description: string) =>
  program.command(name).description(description).option('--json', 'print one JSON object');
