import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  endStoredSession,
  findSession,
  setSessionAccount,
  storeSession,
} from '../../auth/sessions.js';
import { type Workspace, workspacesOf } from '../../auth/sign-in.js';
import { signingSecret } from '../../auth/signed-links.js';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../policy.js';
import { cookieHeader, readCookie } from '../cookies.js';

/**
 * Portal sessions. The cookie holds a random token; the database holds only its SHA-256
 * (user_tokens, purpose `session`), so a leaked table opens nothing, and signing out or
 * a password reset ends a session on the next request. A new token is made at every
 * sign-in, so a token planted before sign-in (session fixation) never becomes a session.
 */
export const SESSION_COOKIE = 'brs_session';
/** The anti-forgery cookie: random per browser, made before any sign-in. */
const CSRF_COOKIE = 'brs_csrf';
const SESSION_TTL_MS = 7 * 24 * 3600_000;

export interface PortalSession {
  tokenHash: string;
  userId: string;
  email: string;
  name: string | null;
  /** The time zone chosen in the profile; null: the browser's. */
  timeZone: string | null;
  /** The account the user is working in now, among `workspaces`. */
  account: Workspace;
  workspaces: Workspace[];
}

const sha256 = (s: string) => hash('sha256', s, 'hex');
const secure = (app: AppContext) => app.config.baseUrl.startsWith('https:');

/** Starts a session in `accountId` and sets its cookie on the reply. */
export async function startSession(
  app: AppContext,
  reply: FastifyReply,
  userId: string,
  accountId: string,
): Promise<void> {
  const token = randomBytes(32).toString('base64url');
  await storeSession(app, { userId, accountId, tokenHash: sha256(token), ttlMs: SESSION_TTL_MS });
  reply.header(
    'set-cookie',
    cookieHeader(SESSION_COOKIE, token, {
      path: '/',
      maxAgeSeconds: SESSION_TTL_MS / 1000,
      secure: secure(app),
    }),
  );
}

/** The signed-in user of this request and the account they work in, or null. */
export async function readSession(
  app: AppContext,
  req: FastifyRequest,
): Promise<PortalSession | null> {
  const token = readCookie(req, SESSION_COOKIE);
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const tokenHash = sha256(token);
  const found = await findSession(app, tokenHash);
  if (!found) return null;
  const workspaces = await workspacesOf(app, found.userId);
  // Removed from the account they were in: they continue in another, or are signed out.
  const account = workspaces.find((w) => w.id === found.accountId) ?? workspaces[0];
  if (!account) return null;
  const { userId, email, name, timeZone } = found;
  return { tokenHash, userId, email, name, timeZone, account, workspaces };
}

/** Moves the session to another account of the user's; false when it is not theirs. */
export async function switchAccount(
  app: AppContext,
  session: PortalSession,
  accountId: string,
): Promise<boolean> {
  if (!session.workspaces.some((w) => w.id === accountId)) return false;
  await setSessionAccount(app, session.tokenHash, accountId);
  return true;
}

/** Ends the session (the row is marked used) and clears the cookie. */
export async function endSession(
  app: AppContext,
  reply: FastifyReply,
  session: PortalSession | null,
): Promise<void> {
  if (session) await endStoredSession(app, session.tokenHash);
  reply.header(
    'set-cookie',
    cookieHeader(SESSION_COOKIE, '', { path: '/', maxAgeSeconds: 0, secure: secure(app) }),
  );
}

/** The session's user as the policy sees them: the same facts an API key carries. */
export function actorOf(session: PortalSession): Actor {
  return {
    kind: 'user',
    userId: session.userId,
    email: session.email,
    accountId: session.account.id,
    plan: session.account.plan,
    role: session.account.role,
    scope: null,
  };
}

/**
 * The anti-forgery token of this browser, for the hidden `_csrf` field of every form: an
 * HMAC of the browser's random CSRF cookie, which is set here when missing. Another site
 * can make the browser post but can neither read the cookie nor compute the HMAC.
 */
export async function csrfToken(
  app: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<string> {
  let seed = readCookie(req, CSRF_COOKIE);
  if (!seed || !/^[A-Za-z0-9_-]{43}$/.test(seed)) {
    seed = randomBytes(32).toString('base64url');
    reply.header(
      'set-cookie',
      cookieHeader(CSRF_COOKIE, seed, {
        path: '/',
        maxAgeSeconds: 365 * 24 * 3600,
        secure: secure(app),
      }),
    );
    // The new cookie is what this response's forms must match.
    (req.headers as Record<string, string>).cookie =
      `${req.headers.cookie ? `${req.headers.cookie}; ` : ''}${CSRF_COOKIE}=${seed}`;
  }
  return mac(app, seed);
}

async function mac(app: AppContext, seed: string): Promise<string> {
  return createHmac('sha256', await signingSecret(app))
    .update(`csrf.${seed}`)
    .digest('base64url');
}

/** Whether the posted `_csrf` field matches this browser's CSRF cookie. */
export async function csrfValid(app: AppContext, req: FastifyRequest, given: string) {
  const seed = readCookie(req, CSRF_COOKIE);
  if (!seed || !given) return false;
  const expected = Buffer.from(await mac(app, seed));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
