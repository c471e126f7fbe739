import { type LookupAddress, type LookupOptions, lookup } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { Agent, fetch } from 'undici';
import type { Config } from '../config.js';
import { hostPort, isAllowlisted, isPublicAddress } from './public-url.js';

export class FetchRefused extends Error {
  /** Worth trying again later (a DNS server that did not answer), not the URL's fault. */
  transient = false;
}

export interface FetchLimits {
  /** Largest body accepted, counted after decompression (so a gzip bomb stops here). */
  maxBytes: number;
  /** Deadline for the whole fetch, redirects and body included. */
  timeoutMs: number;
  maxRedirects: number;
}

export const DEFAULT_LIMITS: FetchLimits = {
  maxBytes: 5 * 1024 * 1024,
  timeoutMs: 15_000,
  maxRedirects: 5,
};

export interface Fetched {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  headers: Headers;
  body: Buffer;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * The DNS lookup of every connection the guarded agent makes: it resolves as the system
 * does (`resolve`, node's own lookup but for tests), then refuses unless every address is
 * public. Being the connection's own lookup, it checks the address actually dialled: a
 * name that resolves differently the second time (DNS rebinding) gains nothing.
 */
export function publicOnlyLookup(resolve: typeof lookup = lookup) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      const refused = err ? undefined : addresses.find((a) => !isPublicAddress(a.address));
      if (err || refused || addresses.length === 0) {
        // One answer whether the name is unknown or resolves inside: a caller must not
        // learn which internal names exist. Only a DNS server that did not answer is
        // worth another try.
        const e = new FetchRefused(
          `${hostname} does not resolve to a public address`,
        ) as FetchRefused & NodeJS.ErrnoException;
        e.code = 'EREFUSED_PRIVATE';
        e.transient = err?.code === 'EAI_AGAIN';
        return callback(e, []);
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

const guarded = new Agent({ connect: { lookup: publicOnlyLookup() } });
const plain = new Agent();

/**
 * The dispatcher for a URL, refusing it before any connection for its scheme, credentials
 * or a literal non-public address; the guarded agent checks resolved names at connect.
 */
export function dispatcherFor(config: Config, url: URL): Agent {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchRefused(`only http and https URLs are fetched, not ${url.protocol}`);
  }
  if (url.username || url.password) throw new FetchRefused('URLs with credentials are not fetched');
  if (isAllowlisted(config, url)) return plain;
  // A literal address is never looked up, so it is checked here. The WHATWG parser has
  // already turned decimal, octal, hex and short IPv4 spellings into dotted form.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host) && !isPublicAddress(host)) {
    throw new FetchRefused(`${hostPort(url)} is not a public address`);
  }
  return guarded;
}

/**
 * One request to a public host (or an allow-listed one), for libraries that make their
 * own requests (oidc-provider's client metadata documents) and keep their own limits. A
 * redirect is answered as it is, never followed: its target would skip the check.
 */
export const publicHostFetch = async (config: Config, url: string, init: object) =>
  fetch(url, { ...init, redirect: 'manual', dispatcher: dispatcherFor(config, new URL(url)) });

/**
 * GETs a user-given or feed URL from public hosts only: http(s), no credentials, every
 * address checked when connecting, every redirect checked again (at most `maxRedirects`),
 * the body capped after decompression, and one deadline for all of it. Hosts in
 * FETCH_ALLOW_HOSTS (`host:port`) skip the public-address rule, for intranets and tests.
 */
export async function safeFetch(
  config: Config,
  target: string,
  opts: {
    headers?: Record<string, string>;
    /**
     * Headers that carry a secret (an API key): sent to the address asked only, never
     * after a redirect to another origin or from https to http.
     */
    credentials?: Record<string, string>;
    limits?: Partial<FetchLimits>;
  } = {},
): Promise<Fetched> {
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new FetchRefused('not a URL');
  }
  const origin = url.origin;
  try {
    for (let hop = 0; ; hop++) {
      const dispatcher = dispatcherFor(config, url);
      const res = await fetch(url, {
        dispatcher,
        redirect: 'manual',
        signal,
        headers: {
          'user-agent': 'StoriesBot/1.0 (+brand monitoring)',
          ...opts.headers,
          ...(url.origin === origin && opts.credentials),
        },
      });
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel();
        if (hop >= limits.maxRedirects)
          throw new FetchRefused(`more than ${limits.maxRedirects} redirects`);
        try {
          url = new URL(location, url);
        } catch {
          throw new FetchRefused('a redirect to something that is not a URL');
        }
        continue;
      }
      const declared = Number(res.headers.get('content-length') ?? 0);
      if (declared > limits.maxBytes) {
        await res.body?.cancel();
        throw new FetchRefused(`larger than ${limits.maxBytes} bytes`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      if (res.body) {
        for await (const chunk of res.body) {
          size += chunk.length;
          if (size > limits.maxBytes) {
            await res.body.cancel().catch(() => {});
            throw new FetchRefused(`larger than ${limits.maxBytes} bytes`);
          }
          chunks.push(Buffer.from(chunk));
        }
      }
      return {
        url: url.href,
        status: res.status,
        headers: res.headers,
        body: Buffer.concat(chunks),
      };
    }
  } catch (e) {
    if (e instanceof FetchRefused) throw e;
    if (signal.aborted) throw new FetchRefused(`no complete answer within ${limits.timeoutMs} ms`);
    const cause = (e as { cause?: unknown }).cause;
    if (cause instanceof FetchRefused) throw cause;
    throw new FetchRefused(`cannot fetch: ${(cause as Error)?.message ?? (e as Error).message}`);
  }
}
