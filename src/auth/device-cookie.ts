import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { cookieHeader, readCookie } from '../web/cookies.js';
import { signLink, verifyLink } from './signed-links.js';

/**
 * Device cookies (OWASP's answer to lock-out by failed sign-ins): a browser where a person
 * signed in keeps a signed cookie naming that email and a device id of its own. Its next
 * sign-ins as that email are counted against the device, not against its network address,
 * so strangers failing behind the same NAT cannot keep a known browser out, while a
 * stranger's browser (which has no such cookie) stays counted by its address.
 */
const DEVICE_COOKIE = 'brs_device';
const DEVICE_TTL_MS = 180 * 86_400_000;
const PURPOSE = 'sign-in-device';

/** The id of this browser's device cookie when it was issued for `email`, else null. */
export async function knownDevice(
  app: AppContext,
  req: FastifyRequest,
  email: string,
): Promise<string | null> {
  const value = readCookie(req, DEVICE_COOKIE);
  if (!value) return null;
  const data = await verifyLink(app, PURPOSE, value);
  return data && data.e === email && typeof data.d === 'string' ? data.d : null;
}

/** After a successful sign-in: this browser is now a known device of `email`. */
export async function rememberDevice(app: AppContext, reply: FastifyReply, email: string) {
  const value = await signLink(
    app,
    PURPOSE,
    { e: email, d: randomBytes(12).toString('base64url') },
    DEVICE_TTL_MS,
  );
  reply.header(
    'set-cookie',
    cookieHeader(DEVICE_COOKIE, value, {
      path: '/',
      maxAgeSeconds: DEVICE_TTL_MS / 1000,
      secure: app.config.baseUrl.startsWith('https:'),
    }),
  );
}
