/**
 * The baseline: the cheapest HTTP server Node can run on this machine. Same listener,
 * same keep-alive connections, a small JSON body, no routing, no work. The service's
 * numbers are read as a fraction of this one. WORKERS processes share the port, exactly
 * as the service's WORKERS do, so both sides of the ratio get the same cores.
 */
import cluster from 'node:cluster';
import { createServer } from 'node:http';

const workers = Number(process.env.WORKERS ?? 1);
if (cluster.isPrimary && workers > 1) {
  for (let i = 0; i < workers; i++) cluster.fork();
  process.on('SIGTERM', () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGKILL');
    process.exit(0);
  });
} else {
  const body = JSON.stringify({ hello: 'world' });
  createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(body);
  }).listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
}
