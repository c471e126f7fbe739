import http from 'node:http';
import https from 'node:https';
import { useAgent } from 'request-filtering-agent';
import type { Config } from '../config.js';
import { isAllowlisted } from './public-url.js';

/** How much of a receiver's answer is read (and thrown away). */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs a body to a user-given URL. The connection is refused at connect time when the
 * resolved address is not public (request-filtering-agent checks the address actually
 * dialled, so DNS rebinding does not help), unless the target is allowlisted. Redirects
 * are not followed; the answer's status is what counts.
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
      {
        method: 'POST',
        agent,
        timeout: timeoutMs,
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) res.destroy();
        });
        res.on('close', () => resolve({ status: res.statusCode ?? 0 }));
        res.on('error', () => resolve({ status: res.statusCode ?? 0 }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}
