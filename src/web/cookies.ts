import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyRequest } from 'fastify';

/** The value of one cookie of the request, or undefined. */
export function readCookie(req: FastifyRequest, name: string): string | undefined {
  return req.headers.cookie ? parseCookie(req.headers.cookie)[name] : undefined;
}

/**
 * A Set-Cookie value: always HttpOnly and SameSite=Lax (sent on top-level navigation
 * only, never on another site's POST), Secure whenever the service is served over https.
 */
export function cookieHeader(
  name: string,
  value: string,
  opts: { path: string; maxAgeSeconds: number; secure: boolean },
): string {
  return stringifySetCookie({
    name,
    value,
    path: opts.path,
    maxAge: opts.maxAgeSeconds,
    httpOnly: true,
    sameSite: 'lax',
    secure: opts.secure,
  });
}
