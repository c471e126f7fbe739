import { fetch } from 'undici';
import type { Config } from '../config.js';
import { dispatcherFor, FetchRefused } from './safe-fetch.js';

/**
 * POSTs a body to a user-given URL and answers its status, with the same guard as
 * `safeFetch` (public addresses only, checked when connecting). Redirects are not
 * followed. `timeoutMs` is a deadline up to the answer's status line: a receiver that
 * trickles bytes cannot hold the caller; the answer's body is not read.
 */
export async function safePost(
  config: Config,
  target: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<{ status: number }> {
  const url = new URL(target);
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetch(url, {
      method: 'POST',
      dispatcher: dispatcherFor(config, url),
      redirect: 'manual',
      signal,
      headers,
      body,
    });
    await res.body?.cancel().catch(() => {});
    return { status: res.status };
  } catch (e) {
    if (e instanceof FetchRefused) throw e;
    if (signal.aborted) throw new Error(`no answer within ${timeoutMs} ms`);
    const cause = (e as { cause?: Error }).cause;
    throw new Error(cause?.message ?? (e as Error).message);
  }
}
