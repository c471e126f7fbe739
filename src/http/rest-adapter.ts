import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateKey, presentedKey } from '../auth/authenticate-key.js';
import { type AppContext, inTransaction } from '../context.js';
import { beginIdempotent, finishIdempotent, releaseIdempotent } from '../domain/idempotency.js';
import { restError } from '../errors.js';
import { executeOperation } from '../operations/execute.js';
import { type RestOperation, ruleFor } from '../operations/operation.js';
import { type Actor, checkAccess } from '../policy.js';
import { fingerprint, validIdempotencyKey } from './idempotency.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Mounts every operation as a REST route: inputs from the query for GET and DELETE, from
 * a strict JSON body for POST; Idempotency-Key honoured on every POST.
 */
export function mountRest(
  fastify: FastifyInstance,
  app: AppContext,
  ops: readonly RestOperation[],
) {
  /** Who is calling, set before the body is parsed (see onRequest below). */
  const actors = new WeakMap<FastifyRequest, Actor>();

  for (const op of ops) {
    const { method, path } = op.rest;
    fastify.route({
      method,
      url: path,
      // Authenticate before the body is read: a bad key is a 401 whatever the body, and a
      // malformed body from a good key still counts against its window, with the headers.
      // The access bar depends on the caller only, so it comes before the body too: an
      // operation a key can never perform is a 403 whatever is sent (type, size, JSON).
      onRequest: async (req, reply) => {
        // The brand a GET or DELETE names is read with the key (brandReadAhead in policy.ts).
        const brand = method === 'POST' ? undefined : (req.query as { brand?: unknown }).brand;
        const { actor, headers } = await authenticateKey(
          app,
          presentedKey(req.headers),
          req.ip,
          typeof brand === 'string' ? brand : undefined,
        );
        reply.headers(headers);
        checkAccess(actor, ruleFor(op.access, actor.kind));
        actors.set(req, actor);
      },
      handler: async (req, reply) => {
        const actor = actors.get(req)!;
        const input = method === 'POST' ? req.body : req.query;
        const idemKey = req.headers['idempotency-key'];
        if (method === 'POST' && idemKey !== undefined) {
          return runIdempotent(app, op, actor, req, reply, idemKey);
        }
        const result = await executeOperation(app, op, actor, input);
        return reply.code(result.status).type(JSON_TYPE).send(JSON.stringify(result.body));
      },
    });
  }
}

/**
 * The first complete answer (errors included) is stored and replayed byte for byte; a
 * 5xx is ours, not the request's, so it releases the key for a retry instead.
 */
async function runIdempotent(
  app: AppContext,
  op: RestOperation,
  actor: Actor,
  req: FastifyRequest,
  reply: FastifyReply,
  rawKey: string | string[],
) {
  const idemKey = validIdempotencyKey(Array.isArray(rawKey) ? '' : rawKey);
  const keyId = actor.kind === 'key' ? actor.keyId : actor.userId;
  const begin = await beginIdempotent(
    app,
    keyId,
    idemKey,
    fingerprint(op.rest.method, op.rest.path, req.body),
  );
  if (begin.kind === 'replay') {
    return reply
      .code(begin.status)
      .header('idempotent-replayed', 'true')
      .type(JSON_TYPE)
      .send(begin.body);
  }
  let status: number;
  let body: string;
  try {
    // The operation's writes and its stored answer commit together: a retry finds either
    // both (and replays) or neither (and runs), never an operation without its record.
    ({ status, body } = await inTransaction(app, async (app) => {
      const result = await executeOperation(app, op, actor, req.body);
      const text = JSON.stringify(result.body);
      await finishIdempotent(app, { keyId, idemKey, status: result.status, body: text });
      return { status: result.status, body: text };
    }));
  } catch (err) {
    const rendered = restError(err);
    if (rendered.status >= 500) {
      await releaseIdempotent(app, keyId, idemKey);
      throw err;
    }
    // A refusal rolled its transaction back, so nothing of the operation remains; store it.
    reply.headers(rendered.headers);
    status = rendered.status;
    body = JSON.stringify(rendered.body);
    await finishIdempotent(app, { keyId, idemKey, status, body });
  }
  return reply.code(status).type(JSON_TYPE).send(body);
}
