import ipaddr from 'ipaddr.js';

/**
 * The bucket a client address is counted in for failed credentials. An IPv6 host usually
 * holds a whole /64 (SLAAC, privacy addresses), so counting single IPv6 addresses would
 * give one client 2^64 fresh budgets: it is counted by its /64. An IPv4-mapped IPv6
 * address counts as its IPv4 address. Anything unparseable is counted as written.
 */
export function addressBucket(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}
