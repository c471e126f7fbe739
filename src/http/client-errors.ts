import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { restError } from '../errors.js';

/**
 * What node's HTTP parser and timers refuse before any route runs (Fastify's
 * `clientErrorHandler`): a request too slow to arrive, headers too large, bytes that are
 * not HTTP. There is no request object yet, so the answer is written on the socket, in
 * the same `{"error": …}` shape as every other error.
 */
function clientErrorAnswer(code: string | undefined): [number, string] {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'request: not received in time'];
  if (code === 'HPE_HEADER_OVERFLOW') return [431, 'request: headers too large'];
  return [400, 'request: malformed HTTP'];
}

/** The raw answer: there is no request object to send it through. */
function writeError(socket: Duplex, status: number, error: string) {
  const body = JSON.stringify({ error });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
  // end() only half-closes; a client that never closes its side must not keep the socket.
  socket.once('finish', () => socket.destroy());
}

/** Fastify calls it with the instance as `this`, for its logger. */
export function clientErrorHandler(
  this: { log: FastifyBaseLogger },
  err: NodeJS.ErrnoException,
  socket: Socket,
) {
  // A reset socket has nobody left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, error] = clientErrorAnswer(err.code);
  this.log.debug({ err, status }, 'client error');
  // An answer already under way (headers sent) cannot be replaced: the socket just ends.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  writeError(socket, status, error);
}

/**
 * Errors Fastify's router raises itself (a malformed URL, an over-long path parameter):
 * answered like the errors of every route, instead of Fastify's own body.
 */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  const r = restError(err, req.log);
  return reply.code(r.status).headers(r.headers).send(r.body);
}

/** HTTP/1.1 requires Host (RFC 9112 §3.2); its absence is answered like any bad request. */
export async function requireHost(req: FastifyRequest, reply: FastifyReply) {
  if (req.raw.httpVersion === '1.1' && req.headers.host === undefined) {
    return reply.code(400).send({ error: 'request: Host header required' });
  }
}

/**
 * An `Expect` other than 100-continue, which node answers 417 itself with an empty body
 * unless someone listens: answered in the `{"error"}` shape too.
 */
export function refuseExpectation(_req: IncomingMessage, res: ServerResponse) {
  const body = JSON.stringify({ error: 'expect: only 100-continue is supported' });
  res.writeHead(417, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  res.end(body);
}

/** The service is no proxy: CONNECT, which node hands to no route, is refused, not dropped. */
export function refuseConnect(_req: IncomingMessage, socket: Duplex) {
  writeError(socket, 405, 'method not allowed: CONNECT');
}
