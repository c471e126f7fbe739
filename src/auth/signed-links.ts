import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../context.js';
import { readSetting } from '../db/settings.js';

/**
 * Stateless signed links (`<payload>.<signature>`, both base64url): an HMAC-SHA256 over
 * the JSON payload with the service's secret, with an expiry inside the payload. Nothing
 * is stored, and any server process can check a link another one made.
 */
const secrets = new WeakMap<AppContext, Buffer>();

/**
 * The service's secret (`SECRET_KEY`, else the one stored at migration). `db` is the
 * caller's transaction when there is one (SQLite has one connection).
 */
export async function signingSecret(app: AppContext): Promise<Buffer> {
  let s = secrets.get(app);
  if (!s) {
    const value = app.config.secretKey ?? (await readSetting(app.db, 'signing_secret'));
    if (value === undefined) throw new Error('no signing_secret: run brs migrate');
    s = Buffer.from(value, 'utf8');
    secrets.set(app, s);
  }
  return s;
}

const mac = (key: Buffer, purpose: string, body: string) =>
  createHmac('sha256', key).update(`${purpose}.${body}`).digest();

export async function signLink(
  app: AppContext,
  purpose: string,
  data: Record<string, unknown>,
  ttlMs: number,
): Promise<string> {
  const exp = app.clock.now().getTime() + ttlMs;
  const body = Buffer.from(JSON.stringify({ ...data, exp })).toString('base64url');
  return `${body}.${mac(await signingSecret(app), purpose, body).toString('base64url')}`;
}

/** The payload of a valid, unexpired link for `purpose`, or null. */
export async function verifyLink(
  app: AppContext,
  purpose: string,
  token: string,
): Promise<Record<string, unknown> | null> {
  const [body, sig, extra] = token.split('.');
  if (!body || !sig || extra !== undefined) return null;
  const expected = mac(await signingSecret(app), purpose, body);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const data = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    if (typeof data?.exp !== 'number' || data.exp < app.clock.now().getTime()) return null;
    return data;
  } catch {
    return null;
  }
}
