import { once } from 'node:events';
import { createServer } from 'node:net';

/** A loopback port nothing listens on now, for a server the benchmark starts. */
export async function freePort() {
  const srv = createServer().listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address();
  srv.close();
  return port;
}
