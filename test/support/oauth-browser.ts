import { createHash, randomBytes } from 'node:crypto';

/**
 * A minimal browser for the OAuth pages: follows redirects by hand, keeps cookies, and
 * answers the sign-in, team and consent forms as a person would. It stops at the first
 * redirect to the client's redirect URI and returns that URL.
 */
export class OAuthBrowser {
  private readonly cookies = new Map<string, string>();
  /** Every page the browser was shown, for assertions on their content. */
  readonly pages: string[] = [];

  constructor(
    private readonly login: { email: string; password: string; team?: string },
    private readonly decision: 'allow' | 'deny' = 'allow',
    /** Sent with every request, e.g. X-Forwarded-For to be another client address. */
    private readonly headers: Record<string, string> = {},
  ) {}

  async authorize(authorizationUrl: string, redirectUri: string): Promise<URL> {
    let res = await this.fetch(authorizationUrl);
    for (let step = 0; step < 20; step++) {
      const location = res.headers.get('location');
      if (location) {
        const next = new URL(location, res.url || authorizationUrl);
        if (next.href.startsWith(redirectUri)) return next;
        res = await this.fetch(next.href);
        continue;
      }
      const html = await res.text();
      this.pages.push(html);
      if (res.status !== 200) throw new Error(`OAuth page answered ${res.status}: ${html}`);
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      if (!action) throw new Error(`no form on the page: ${html}`);
      const target = new URL(action.replaceAll('&amp;', '&'), res.url).href;
      if (action.endsWith('/login')) {
        res = await this.post(target, { email: this.login.email, password: this.login.password });
      } else if (action.endsWith('/workspace')) {
        const ticket = /name="ticket" value="([^"]+)"/.exec(html)![1]!;
        const team = this.login.team ?? /name="account" value="([^"]+)"/.exec(html)![1]!;
        res = await this.post(target, { ticket, account: team });
      } else if (action.endsWith('/consent')) {
        res = await this.post(target, { decision: this.decision });
      } else {
        // The library's own self-submitting forms (ending the old session when someone
        // else signs in): send their hidden fields as a browser's script would.
        const fields = [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)];
        res = await this.post(target, Object.fromEntries(fields.map((m) => [m[1]!, m[2]!])));
      }
    }
    throw new Error('too many redirects');
  }

  private async fetch(url: string, init: RequestInit = {}) {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: {
        ...this.headers,
        ...(init.headers as Record<string, string>),
        cookie: this.cookieHeader(),
      },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i);
      const value = pair!.slice(i + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    Object.defineProperty(res, 'url', { value: url });
    return res;
  }

  private post(url: string, form: Record<string, string>) {
    return this.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  }

  /** A cookie this browser holds, as the server set it. */
  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  private cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

/**
 * The whole flow without the SDK (registration, PKCE, sign-in, consent, code exchange),
 * for tests that need a signed-in user's tokens rather than the flow itself.
 */
export async function signIn(
  base: string,
  login: { email: string; password: string; team?: string },
  browser = new OAuthBrowser(login),
  extra: Record<string, string> = {},
): Promise<{ access_token: string; refresh_token: string; client_id: string }> {
  const redirectUri = 'http://127.0.0.1:1/callback';
  const client = await registerClient(base, { client_name: 'Test agent', redirectUri });
  const { verifier, challenge } = pkcePair();
  const auth = new URL(authorizeUrl(base, { clientId: client.client_id, redirectUri, challenge }));
  for (const [k, v] of Object.entries(extra)) auth.searchParams.set(k, v);
  // An empty value in `extra` leaves the parameter out (a client that sends no scope).
  for (const [k, v] of Object.entries(extra)) if (v === '') auth.searchParams.delete(k);
  const back = await browser.authorize(auth.href, redirectUri);
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code: ${back.href}`);
  const token = await redeemCode(base, {
    code,
    redirectUri,
    clientId: client.client_id,
    verifier,
    resource: `${base}/mcp`,
  });
  const body = (await token.json()) as { access_token: string; refresh_token: string };
  if (!body.access_token) throw new Error(`token exchange failed: ${JSON.stringify(body)}`);
  return { ...body, client_id: client.client_id };
}

/** An authorization request of the code flow with PKCE, for /mcp, as MCP clients send it. */
export function authorizeUrl(
  base: string,
  a: { clientId: string; redirectUri: string; challenge: string; state?: string },
) {
  return `${base}/oauth/authorize?${new URLSearchParams({
    client_id: a.clientId,
    response_type: 'code',
    redirect_uri: a.redirectUri,
    scope: 'mcp',
    code_challenge: a.challenge,
    code_challenge_method: 'S256',
    resource: `${base}/mcp`,
    state: a.state ?? 'xyz',
  })}`;
}

/** The code exchange at the token endpoint (with the client's secret when it has one). */
export function redeemCode(
  base: string,
  r: {
    code: string;
    redirectUri: string;
    clientId: string;
    verifier: string;
    clientSecret?: string;
    resource?: string;
  },
) {
  return fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: r.code,
      redirect_uri: r.redirectUri,
      client_id: r.clientId,
      code_verifier: r.verifier,
      ...(r.clientSecret && { client_secret: r.clientSecret }),
      ...(r.resource && { resource: r.resource }),
    }).toString(),
  });
}

/** A public client (PKCE, no secret) registered at the authorization server. */
export async function registerClient(
  base: string,
  { client_name, redirectUri }: { client_name: string; redirectUri: string },
): Promise<{ client_id: string }> {
  const reg = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    }),
  });
  return (await reg.json()) as { client_id: string };
}

/** MCP tools/list at `base`, with an OAuth access token: 200 while the token holds. */
export const listToolsWith = (base: string, accessToken: string) =>
  fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
