import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { within } from '../within.js';

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

/**
 * Counts work a hook starts outside any route handler (a hijacked reply answered by
 * another library), as trackHandlers counts handlers, until its answer is sent or its
 * client leaves (the library's work is not visible past that); while the server drains,
 * the answer ends its connection.
 */
export function trackReply(server: FastifyInstance, raw: ServerResponse): void {
  const handlers = running.get(server);
  if (draining.has(server)) raw.setHeader('connection', 'close');
  if (!handlers) return;
  handlers.count++;
  let counted = true;
  const done = () => {
    if (counted) handlers.count--;
    counted = false;
  };
  raw.once('finish', done);
  raw.once('close', done);
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
  // The server's own close waits for this same stop (JobRunner.stop answers its first
  // promise), so the job in hand holds the shutdown no longer than the timeout.
  const jobs = app.jobs
    .stop({ timeoutMs: shutdownDelayMs + shutdownTimeoutMs })
    .catch((err) => server.log.error({ err }, 'shutting down: stopping the jobs failed'));
  await new Promise((resolve) => setTimeout(resolve, shutdownDelayMs));
  const deadline = Date.now() + shutdownTimeoutMs;
  const closed = await within(
    server.close().then(() => true),
    shutdownTimeoutMs + 1000,
  );
  // Connections are closed; a handler whose client left may still be at work.
  const done = closed && (await handlersDone(server, Math.max(0, deadline - Date.now())));
  if (!done) server.log.warn('shutting down: requests still in flight were cut off');
  await jobs;
  if (
    !(await within(
      app.close().then(() => true),
      5000,
    ))
  ) {
    server.log.warn('shutting down: the database and Redis did not close in 5 s');
  }
}
