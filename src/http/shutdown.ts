import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

const draining = new WeakSet<FastifyInstance>();
/** Route handlers running, by server: their requests may outlive their connections. */
const running = new WeakMap<FastifyInstance, { count: number }>();

/**
 * Counts the route handlers running on `server` (call before its routes are added): a
 * handler whose client went away keeps running, and shutting down must wait for it
 * before the database is closed under it.
 */
export function trackHandlers(server: FastifyInstance): void {
  const handlers = { count: 0 };
  running.set(server, handlers);
  server.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function (this: FastifyInstance, ...args: Parameters<typeof handler>) {
      handlers.count++;
      let result: unknown;
      try {
        result = handler.apply(this, args);
      } catch (err) {
        handlers.count--;
        throw err;
      }
      if (result instanceof Promise) {
        return result.finally(() => {
          handlers.count--;
        });
      }
      handlers.count--;
      return result;
    } as typeof handler;
  });
}

/** Resolves once no handler runs on `server`, or false after `ms`. */
async function handlersDone(server: FastifyInstance, ms: number): Promise<boolean> {
  const handlers = running.get(server);
  const deadline = Date.now() + ms;
  while (handlers && handlers.count > 0) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

/** Whether `server` is shutting down: /readyz answers 503 and connections are not kept. */
export const isDraining = (server: FastifyInstance) => draining.has(server);

/**
 * Stops an instance without failing a request (SIGTERM, SIGINT). At once: /readyz turns
 * 503, every answer closes its connection (a balancer's kept connections go with it) and
 * no new job is claimed. The server keeps answering for SHUTDOWN_DELAY_MS, the time a
 * balancer needs to see the 503 and stop sending here; then it stops listening and
 * finishes the requests in flight (their handlers too, if their client left) and the job
 * in hand. What is not finished within
 * SHUTDOWN_TIMEOUT_MS is given up: the job's claim is handed back for another instance.
 */
export async function shutdown(server: FastifyInstance, app: AppContext): Promise<void> {
  const { shutdownDelayMs, shutdownTimeoutMs } = app.config.http;
  draining.add(server);
  server.log.info({ delayMs: shutdownDelayMs }, 'shutting down: draining');
  const jobs = app.jobs.stop({ timeoutMs: shutdownDelayMs + shutdownTimeoutMs });
  await new Promise((resolve) => setTimeout(resolve, shutdownDelayMs));
  const deadline = Date.now() + shutdownTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    server.close().then(() => true),
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), shutdownTimeoutMs);
    }),
  ]);
  clearTimeout(timer);
  // Connections are closed; a handler whose client left may still be at work.
  const done = closed && (await handlersDone(server, Math.max(0, deadline - Date.now())));
  if (!done) server.log.warn('shutting down: requests still in flight were cut off');
  await jobs;
  await app.close();
}
