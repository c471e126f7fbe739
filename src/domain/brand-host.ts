import { parse } from 'tldts';
import { invalid } from '../errors.js';

/**
 * What may be a brand's host, and which mailboxes speak for it. Every path that creates,
 * invites, onboards or verifies a brand asks here, so `com`, `co.uk`, `github.io`, a
 * single-label name or an IP address never becomes a brand that any address under it
 * could claim.
 */

/** LDH labels of 1 to 63 characters, 253 in all, lower case (callers lower-case first). */
export const HOST_PATTERN =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Mailbox providers: an address there proves nothing about owning the provider's brand,
 * so their domains cannot be verified by email or claimed through onboarding (their
 * owners verify with us directly).
 */
export const FREE_MAIL_HOSTS = new Set([
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'msn.com',
  'yahoo.com',
  'ymail.com',
  'icloud.com',
  'me.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'gmx.com',
  'gmx.de',
  'gmx.net',
  'web.de',
  'mail.com',
  'yandex.com',
  'yandex.ru',
  'zoho.com',
  'fastmail.com',
  'qq.com',
  '163.com',
]);

/**
 * The registrable domain of a host by the Public Suffix List, private section included:
 * `shop.acme.co.uk` → `acme.co.uk`, `acme.github.io` → `acme.github.io` (github.io is a
 * suffix its users register under), `co.uk` or `github.io` itself → null.
 */
export function registrableDomain(host: string): string | null {
  const p = parse(host, { allowPrivateDomains: true });
  return p.isIp ? null : p.domain;
}

/**
 * Special-use names (RFC 6761, 6762, 7686, 8375, 9476) that never reach the public DNS, so
 * nobody's brand lives there. `example` and `test` stay allowed: they name documentation
 * and test brands (the demo data is `acme.example`).
 */
const SPECIAL_USE_TLDS = new Set([
  'localhost',
  'invalid',
  'local',
  'onion',
  'internal',
  'alt',
  'arpa',
]);

/** Why a host cannot be a brand's, or null when it can. */
export function brandHostProblem(host: string): string | null {
  if (!HOST_PATTERN.test(host)) return 'must be a domain name such as acme.com';
  if (SPECIAL_USE_TLDS.has(host.slice(host.lastIndexOf('.') + 1))) {
    return `${host} is a special-use name that no public site has, not a brand's domain`;
  }
  // An all-digit last label is an IPv4 address (or a shortened one, 127.1): never a TLD.
  if (/^\d+$/.test(host.slice(host.lastIndexOf('.') + 1))) {
    return `${host} is an IP address, not a brand's domain`;
  }
  // A host that is itself a suffix (ICANN's com, co.uk, or a private one such as
  // github.io) is shared by everyone registered under it: it is nobody's brand.
  const p = parse(host, { allowPrivateDomains: true });
  const suffix = `${host} is a public suffix, not a brand's domain`;
  if (p.domain === null && (p.isIcann || p.isPrivate)) return suffix;
  if (!host.includes('.')) return `${host} is a single-label name, not a brand's domain`;
  return p.domain === null ? suffix : null;
}

/** The host when it can be a brand's; a 400 naming the field and the problem otherwise. */
export function requireBrandHost(host: string, field = 'host'): string {
  const problem = brandHostProblem(host);
  if (problem) throw invalid(`${field}: ${problem}`);
  return host;
}

/**
 * Whether a mailbox speaks for the brand: the address's registrable domain must be the
 * brand's. So ops@acme.co.uk and ops@mail.acme.co.uk both verify acme.co.uk and
 * shop.acme.co.uk (one organisation holds the registered domain and every name under
 * it), while nobody@other.github.io verifies nothing of acme.github.io.
 */
export function emailOnBrandDomain(email: string, host: string): boolean {
  const brand = registrableDomain(host);
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return brand !== null && HOST_PATTERN.test(domain) && registrableDomain(domain) === brand;
}

/** Whether the brand's domain is a mailbox provider's (gmail.com, mail.gmail.com, …). */
export function isMailProviderDomain(host: string): boolean {
  return FREE_MAIL_HOSTS.has(registrableDomain(host) ?? host);
}
