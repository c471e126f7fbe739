import http from 'node:http';
import https from 'node:https';
import { useAgent } from 'request-filtering-agent';
import type { Config } from '../config.js';
import { isAllowlisted } from './public-url.js';

/**
 * POSTs a body to a user-given URL and answers its status. The connection is refused at
 * connect time when the resolved address is not public (request-filtering-agent checks
 * the address actually dialled, so DNS rebinding does not help), unless the target is
 * allowlisted. Redirects are not followed. `timeoutMs` is a deadline for the whole
 * exchange up to the answer's status line: a receiver that trickles bytes cannot hold the
 * caller; the answer's body is not waited for.
 */
export function safePost(
  config: Config,
  target: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<{ status: number }> {
  const url = new URL(target);
  const client = url.protocol === 'https:' ? https : http;
  const agent = isAllowlisted(config, url) ? undefined : useAgent(url.href);
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        clearTimeout(deadline);
        resolve({ status: res.statusCode ?? 0 });
        // The answer's body is of no use: drop the connection rather than read it.
        res.destroy();
      },
    );
    const deadline = setTimeout(
      () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    req.on('error', (e) => {
      clearTimeout(deadline);
      reject(e);
    });
    req.end(body);
  });
}
