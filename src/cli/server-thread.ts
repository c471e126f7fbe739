/**
 * A server thread's entry (server-threads.ts starts WORKERS of them): builds the server,
 * says so, listens on the shared port when told to, and drains and ends when told to stop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type AppContext, createContext } from '../context.js';
import { buildServer } from '../http/server.js';
import { SharedRateLimiter } from '../http/shared-rate-limiter.js';
import { shutdown } from '../http/shutdown.js';
import { BUILT, LISTEN, LISTENING, STOP, type ThreadData } from './server-threads.js';

const { config, port, windows, thread } = workerData as ThreadData;
const parent = parentPort!;
let app: AppContext | undefined;
let server: Awaited<ReturnType<typeof buildServer>> | undefined;
let stopping: Promise<void> | undefined;

/** Until it listens, a thread told to stop only lets go of what it holds. */
const stop = () => {
  stopping ??= (async () => {
    if (server?.server.listening && app) await shutdown(server, app);
    else await app?.close();
    process.exit(0); // in a thread, ends the thread
  })();
};
parent.on('message', (m) => {
  if (m === STOP) stop();
});

try {
  app = await createContext(config, windows ? { limiter: new SharedRateLimiter(windows) } : {});
  server = await buildServer(app, { thread });
  await server.ready();
  await new Promise<void>((resolve) => {
    parent.on('message', (m) => m === LISTEN && resolve());
    parent.postMessage(BUILT);
  });
  if (!stopping) {
    // Fastify hands the options to node's listen, whose reusePort its types do not list yet.
    const options = { port, host: config.host, reusePort: true };
    await server.listen(options);
    parent.postMessage(LISTENING);
  }
} catch (e) {
  process.stderr.write(`brs: ${(e as Error).message}\n`);
  await app?.close();
  process.exit(1);
}
