/**
 * The baseline: the cheapest HTTP server Node can run on this machine. Same listener,
 * same keep-alive connections, a small JSON body, no routing, no work. The service's
 * numbers are read as a fraction of this one. WORKERS threads share the port with
 * SO_REUSEPORT, exactly as the service's WORKERS do, so both sides of the ratio get the
 * same cores the same way.
 */
import { createServer } from 'node:http';
import { isMainThread, Worker } from 'node:worker_threads';

const workers = Number(process.env.WORKERS ?? 1);
if (isMainThread && workers > 1) {
  for (let i = 0; i < workers; i++) new Worker(new URL(import.meta.url));
  process.on('SIGTERM', () => process.exit(0));
} else {
  const body = JSON.stringify({ hello: 'world' });
  createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(body);
  }).listen({
    port: Number(process.env.PORT),
    host: process.env.HOST ?? '127.0.0.1',
    reusePort: workers > 1,
  });
}
