import type { FastifyRequest } from 'fastify';

/** The value of one cookie of the request, or undefined. */
export function readCookie(req: FastifyRequest, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const c = part.trim();
    if (c.startsWith(`${name}=`)) return c.slice(name.length + 1);
  }
  return undefined;
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
  return [
    `${name}=${value}`,
    `Path=${opts.path}`,
    `Max-Age=${opts.maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(opts.secure ? ['Secure'] : []),
  ].join('; ');
}
