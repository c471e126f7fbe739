/**
 * A browser without a browser, for the portal's HTTP-level tests: it keeps cookies,
 * does not follow redirects (so tests see them), and reads the anti-forgery token of the
 * last page it loaded into every form it posts, as a real form would carry it.
 */
export class PortalClient {
  readonly cookies = new Map<string, string>();
  private csrf = '';

  /** `headers` go with every request, e.g. X-Forwarded-For to be another client address. */
  constructor(
    readonly base: string,
    readonly headers: Record<string, string> = {},
  ) {}

  /** The Cookie header this browser sends, for a request made without it (a download). */
  cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i);
      const value = pair!.slice(i + 1);
      if (/Max-Age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async get(path: string) {
    const res = await fetch(new URL(path, this.base), {
      redirect: 'manual',
      headers: { ...this.headers, cookie: this.cookieHeader() },
    });
    this.keep(res);
    const html = await res.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
    if (token) this.csrf = token;
    return {
      status: res.status,
      html,
      location: res.headers.get('location'),
      headers: res.headers,
    };
  }

  /**
   * Posts a form with this page's token; `csrf: false` leaves it out, a string replaces
   * it. Pairs post a name more than once (ticked checkboxes).
   */
  async post(
    path: string,
    fields: Record<string, string> | [string, string][] = {},
    opts: { csrf?: string | false; origin?: string } = {},
  ) {
    const body = new URLSearchParams(fields);
    if (opts.csrf !== false) body.set('_csrf', opts.csrf ?? this.csrf);
    const res = await fetch(new URL(path, this.base), {
      method: 'POST',
      redirect: 'manual',
      headers: {
        ...this.headers,
        cookie: this.cookieHeader(),
        'content-type': 'application/x-www-form-urlencoded',
        ...(opts.origin && { origin: opts.origin }),
      },
      body,
    });
    this.keep(res);
    const html = await res.text();
    return {
      status: res.status,
      html,
      location: res.headers.get('location'),
      headers: res.headers,
    };
  }

  /** Loads the sign-in page, signs in, and answers where it was sent. */
  async signIn(email: string, password: string, next?: string) {
    await this.get(next ? `/signin?next=${encodeURIComponent(next)}` : '/signin');
    return this.post('/signin', { email, password, ...(next && { next }) });
  }
}
