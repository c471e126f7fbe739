import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config.js';
import { invalid } from '../errors.js';

/** `host:port` of a URL, with the scheme's default port, as FETCH_ALLOW_HOSTS lists them. */
export function hostPort(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.hostname}:${port}`;
}

/** Whether the operator exempted this target from the public-host rule (intranets, tests). */
export const isAllowlisted = (config: Config, url: URL) =>
  config.fetchAllowHosts.includes(hostPort(url));

/** Only ordinary public unicast addresses: no loopback, private, link-local, reserved, … */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  // ::ffff:10.0.0.1 is 10.0.0.1.
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) {
    ip = (ip as ipaddr.IPv6).toIPv4Address();
  }
  return ip.range() === 'unicast';
}

/**
 * Checks a user-given target URL when it is registered: HTTPS, and a host whose every
 * address is public (the WHATWG parser has already turned decimal, octal and short IPv4
 * spellings into dotted form). Allowlisted `host:port` entries skip both rules. Delivery
 * checks the connected address again (`safe-post.ts`), because DNS can change.
 */
export async function assertPublicUrl(config: Config, raw: string, field: string): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(`${field}: must be a URL`);
  }
  if (url.username || url.password) throw invalid(`${field}: must not carry credentials`);
  if (isAllowlisted(config, url)) return url;
  if (url.protocol !== 'https:') throw invalid(`${field}: must be an HTTPS URL`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = ipaddr.isValid(host)
      ? [host]
      : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    throw invalid(`${field}: the host does not resolve`);
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    throw invalid(`${field}: must be on a public host`);
  }
  return url;
}
