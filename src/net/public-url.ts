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

/**
 * IPv6 prefixes that lead to an IPv4 host through a translator or a tunnel: NAT64
 * (RFC 6052, and RFC 8215's local-use prefix), SIIT (RFC 6145), 6to4 (RFC 3056) and
 * Teredo (RFC 4380, whose client address is stored inverted). The host reached is an IPv4
 * one behind a relay the service does not control, so these are refused whatever they
 * carry, public or not.
 */
const TRANSLATED_PREFIXES = (
  [
    ['64:ff9b::', 96],
    ['64:ff9b:1::', 48],
    ['::ffff:0:0:0', 96],
    ['2002::', 16],
    ['2001::', 32],
  ] as const
).map(([prefix, bits]) => [ipaddr.IPv6.parse(prefix), bits] as const);

/** The IPv4 address in the low 32 bits of an IPv6 address. */
const low32 = (ip: ipaddr.IPv6) =>
  new ipaddr.IPv4([ip.parts[6]! >> 8, ip.parts[6]! & 0xff, ip.parts[7]! >> 8, ip.parts[7]! & 0xff]);

/**
 * Only ordinary public unicast addresses: no loopback, private, link-local, reserved, …,
 * and no IPv6 spelling of a non-public IPv4 address. IPv4-mapped (`::ffff:a.b.c.d`),
 * IPv4-compatible (`::a.b.c.d`, deprecated but still routed to the IPv4 host by some
 * stacks) and ISATAP (`…:0:5efe:a.b.c.d`) addresses are judged by the IPv4 address they
 * carry; translated and tunnelled prefixes are refused (above).
 */
const GLOBAL_UNICAST = ipaddr.IPv6.parse('2000::');

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv4') return ip.range() === 'unicast';
  const v6 = ip as ipaddr.IPv6;
  const [a, b, c, d, e, f] = v6.parts;
  // ::/96 and ::ffff:0:0/96 (:: and ::1 included: they carry 0.0.0.0 and 0.0.0.1).
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && (f === 0 || f === 0xffff)) {
    return low32(v6).range() === 'unicast';
  }
  if (TRANSLATED_PREFIXES.some(([prefix, bits]) => v6.match(prefix, bits))) return false;
  // ISATAP: the interface identifier 0:5efe or 200:5efe (u/g bits aside) names the IPv4 host.
  if ((e! & 0xfcff) === 0 && f === 0x5efe && low32(v6).range() !== 'unicast') return false;
  // Only global unicast (2000::/3) is routed on the internet; anything else ipaddr.js
  // calls unicast (::1:7f00:1, 1::…) is unassigned space no public site lives in.
  return v6.match(GLOBAL_UNICAST, 3) && v6.range() === 'unicast';
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
