import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Config } from '../config.js';
import { createContext } from '../context.js';
import { migrate } from '../db/database.js';
import { seedDemo } from '../demo/seed-demo.js';
import { buildServer } from '../http/server.js';

/** Runs the server until SIGINT/SIGTERM, then drains requests and closes connections. */
export async function serve(
  config: Config,
  opts: { json: boolean; banner?: (url: string) => Promise<string> },
) {
  const app = await createContext(config);
  await migrate(app.db);
  const server = await buildServer(app);
  const address = await server.listen({ port: config.port, host: config.host });
  const url = config.port === 0 ? address : config.baseUrl;
  if (opts.json) process.stdout.write(`${JSON.stringify({ url })}\n`);
  else
    process.stdout.write(opts.banner ? await opts.banner(url) : `Stories is listening on ${url}\n`);
  const stop = async () => {
    await server.close();
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/**
 * `npm start`: the quickstart. Seeds the demo into an empty database and keeps its keys
 * in a file beside the data (keys are stored hashed, so this is the only way to print the
 * demo key again on the next start).
 */
export async function start(config: Config, opts: { json: boolean }) {
  const credentials = join(
    config.database.dialect === 'sqlite' ? dirname(config.database.file) : 'data',
    'demo-credentials.json',
  );
  const app = await createContext(config);
  try {
    await migrate(app.db);
    const empty = !(await app.db.selectFrom('accounts').select('id').limit(1).executeTakeFirst());
    if (empty) {
      const demo = await seedDemo(app);
      await mkdir(dirname(credentials), { recursive: true });
      await writeFile(credentials, JSON.stringify(demo, null, 2), { mode: 0o600 });
    }
  } finally {
    await app.close();
  }
  const demo = await readFile(credentials, 'utf8')
    .then(JSON.parse)
    .catch(() => null);
  await serve(config, {
    json: opts.json,
    banner: async (url) => {
      const key: string | undefined = demo?.keys?.northwind_owner?.key;
      const lines = [`Stories is listening on ${url}`, `API docs:       ${url}/docs`];
      if (key) {
        lines.push(
          `Demo API key:   ${key}   (Northwind Communications, owner, full scope)`,
          'Try it:',
          `  curl -s -H 'x-api-key: ${key}' '${url}/v1/stories?brand=acme.com'`,
          `Other demo keys and users: ${credentials}`,
        );
      }
      return `${lines.join('\n')}\n`;
    },
  });
}
