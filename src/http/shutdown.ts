import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

const draining = new WeakSet<FastifyInstance>();

/** Whether `server` is shutting down: /readyz answers 503 and connections are not kept. */
export const isDraining = (server: FastifyInstance) => draining.has(server);

/**
 * Stops an instance without failing a request (SIGTERM, SIGINT). At once: /readyz turns
 * 503, every answer closes its connection (a balancer's kept connections go with it) and
 * no new job is claimed. The server keeps answering for SHUTDOWN_DELAY_MS, the time a
 * balancer needs to see the 503 and stop sending here; then it stops listening and
 * finishes the requests in flight and the job in hand. What is not finished within
 * SHUTDOWN_TIMEOUT_MS is given up: the job's claim is handed back for another instance.
 */
export async function shutdown(server: FastifyInstance, app: AppContext): Promise<void> {
  const { shutdownDelayMs, shutdownTimeoutMs } = app.config.http;
  draining.add(server);
  server.log.info({ delayMs: shutdownDelayMs }, 'shutting down: draining');
  const jobs = app.jobs.stop({ timeoutMs: shutdownDelayMs + shutdownTimeoutMs });
  await new Promise((resolve) => setTimeout(resolve, shutdownDelayMs));
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    server.close().then(() => true),
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), shutdownTimeoutMs);
    }),
  ]);
  clearTimeout(timer);
  if (!closed) server.log.warn('shutting down: requests still in flight were cut off');
  await jobs;
  await app.close();
}
