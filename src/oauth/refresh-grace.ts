import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import {
  claimRefreshAnswer,
  dropRefreshAnswer,
  findRefreshAnswer,
  saveRefreshAnswer,
  takeOverRefreshAnswer,
} from '../db/oauth-store.js';
import { mcpResource } from './provider.js';

/**
 * Parallel refreshes (issue 17): an MCP client with three calls in flight when its access
 * token goes stale may send the same refresh token three times. Refresh tokens rotate on
 * every use and a used one replayed revokes the whole grant (provider.ts), so without
 * this the user would be signed out. Within REFRESH_GRACE_MS of the first use, a repeat
 * of the same refresh token gets the very answer the first got (the same new pair), and
 * nothing new is issued; after it, a replay revokes as before.
 *
 * The first request claims the refresh (a row, so every process sees it) and runs it
 * through oidc-provider; repeats wait for its answer, and one of them takes the claim
 * over when the first never answers (REFRESH_WAIT_MS). The row's key is a digest of the
 * request's credentials (old refresh token, client id and secret), and the answer is
 * sealed with a key derived from them, which only their holder has: the database never
 * holds a usable token in the clear.
 */
export const REFRESH_GRACE_MS = 30_000;
/**
 * How long a refresh may take. A claim older than this with no answer is a request that
 * died (its process, its database write): the next repeat takes the claim over.
 */
export const REFRESH_WAIT_MS = 5_000;
/** oidc-provider's own limit on a request body. */
const BODY_LIMIT = 56 * 1024;

/** The requests that claimed their refresh: provider.ts stores or drops their answer. */
const leaders = new WeakMap<IncomingMessage, string>();

/** The refresh a leading request claimed (its credential), when `req` is one. */
export const claimedRefresh = (req: IncomingMessage) => leaders.get(req);

const sealAnswer = (credential: string, answer: unknown) => {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(credential), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(answer)), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
};

function openAnswer(credential: string, sealed: string): unknown {
  const raw = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(credential), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return JSON.parse(
    Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString(),
  );
}

const keyOf = (credential: string) =>
  Buffer.from(hkdfSync('sha256', credential, 'stories', 'oauth refresh answer', 32));

/**
 * For POST /oauth/token, before oidc-provider: answers a repeat within the grace period
 * itself, or returns the request to hand the provider (its body, read here, replayed).
 */
export async function beforeTokenRequest(
  app: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<IncomingMessage | 'answered'> {
  const body = await readBody(req.raw);
  if (body === undefined) {
    reply
      .code(413)
      .header('connection', 'close')
      .send({ error: 'invalid_request', error_description: 'request too large' });
    return 'answered';
  }
  const forward = replay(req.raw, body);
  const params = new URLSearchParams(
    req.headers['content-type']?.startsWith('application/x-www-form-urlencoded')
      ? body.toString()
      : '',
  );
  if (params.get('grant_type') !== 'refresh_token' || !params.get('refresh_token')) {
    return forward;
  }
  const credential = refreshCredential(params, req.headers.authorization, mcpResource(app));
  const lead = () => {
    leaders.set(forward, credential);
    return forward;
  };
  const until = () => new Date(app.clock.now().getTime() + REFRESH_GRACE_MS);
  if (await claimRefreshAnswer(app.db, credential, until())) return lead();
  const giveUp = Date.now() + 2 * REFRESH_WAIT_MS;
  for (let pause = 25; ; pause = Math.min(2 * pause, 200)) {
    const claim = await findRefreshAnswer(app.db, credential);
    const now = app.clock.now().getTime();
    // The first refresh failed (its error is the provider's to give again), or the grace
    // period is over (a replay now: the provider revokes the grant).
    if (!claim || claim.until.getTime() <= now) return forward;
    if (claim.sealed !== '') {
      let answer: unknown;
      try {
        answer = openAnswer(credential, claim.sealed);
      } catch {
        return forward; // not this token's answer: the provider decides
      }
      reply.code(200).header('cache-control', 'no-store').header('pragma', 'no-cache').send(answer);
      return 'answered';
    }
    const claimedAt = claim.until.getTime() - REFRESH_GRACE_MS;
    if (now - claimedAt > REFRESH_WAIT_MS) {
      if (await takeOverRefreshAnswer(app.db, credential, claim.until, until())) return lead();
    }
    if (Date.now() > giveUp) return forward;
    await new Promise((r) => setTimeout(r, pause));
  }
}

/**
 * What makes a refresh request the same one again: the refresh token, the client's
 * credentials and what it asks for. One that differs in anything goes to the provider,
 * which judges it as before. Naming /mcp as the `resource` asks for what naming none does
 * (it is the default and only resource), so a repeat that adds it, as the SDKs' clients
 * do, is the same refresh.
 */
export function refreshCredential(
  params: URLSearchParams,
  authorization: string | undefined,
  ownResource: string,
) {
  return JSON.stringify([
    params.get('refresh_token'),
    params.get('client_id'),
    params.get('client_secret'),
    authorization ?? null,
    params.get('scope'),
    [...new Set(params.getAll('resource'))].filter((r) => r !== ownResource),
  ]);
}

/** After oidc-provider answered a leading refresh: keep its answer, or let a repeat run. */
export async function afterTokenRequest(
  app: AppContext,
  credential: string,
  status: number,
  answer: unknown,
) {
  if (status === 200) await saveRefreshAnswer(app.db, credential, sealAnswer(credential, answer));
  else await dropRefreshAnswer(app.db, credential);
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Stopping early must not destroy the request: its socket still carries the answer.
  for await (const chunk of req.iterator({ destroyOnReturn: false })) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The same request again, with the body this module read, for the provider to read. */
function replay(req: IncomingMessage, body: Buffer): IncomingMessage {
  const copy = new IncomingMessage(req.socket);
  copy.method = req.method;
  copy.url = req.url;
  copy.headers = req.headers;
  copy.rawHeaders = req.rawHeaders;
  copy.httpVersion = req.httpVersion;
  copy.httpVersionMajor = req.httpVersionMajor;
  copy.httpVersionMinor = req.httpVersionMinor;
  copy.complete = true;
  copy.push(body);
  copy.push(null);
  return copy;
}
