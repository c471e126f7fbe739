/**
 * The baseline: the cheapest HTTP server Node can run on this machine. Same listener,
 * same keep-alive connections, a small JSON body, no routing, no work. The service's
 * numbers are read as a fraction of this one.
 */
import { createServer } from 'node:http';

const body = JSON.stringify({ hello: 'world' });
createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  res.end(body);
}).listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
