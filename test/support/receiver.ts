import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * An HTTP receiver on a loopback port, standing in for Slack's and Teams' incoming
 * webhooks and for partners' endpoints: it keeps every POST and answers `status(path)`.
 */
export async function startReceiver(status: (path: string) => number = () => 200) {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      hits.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(status(req.url ?? '')).end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    hits,
    port,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    on: (path: string) => hits.filter((h) => h.path === path),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
