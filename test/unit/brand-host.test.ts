import { describe, expect, it } from 'vitest';
import {
  brandHostProblem,
  emailOnBrandDomain,
  isMailProviderDomain,
  registrableDomain,
} from '../../src/domain/brand-host.js';

describe('brand hosts', () => {
  it('refuses suffixes (ICANN and private), single labels, IP addresses and bad labels', () => {
    expect(brandHostProblem('com')).toBe("com is a public suffix, not a brand's domain");
    expect(brandHostProblem('co.uk')).toBe("co.uk is a public suffix, not a brand's domain");
    expect(brandHostProblem('github.io')).toBe(
      "github.io is a public suffix, not a brand's domain",
    );
    expect(brandHostProblem('s3.amazonaws.com')).toMatch(/is a public suffix/);
    expect(brandHostProblem('intranet')).toBe(
      "intranet is a single-label name, not a brand's domain",
    );
    for (const special of ['localhost', 'acme.invalid', 'acme.local', 'x.localhost', 'a.onion']) {
      expect(brandHostProblem(special), special).toBe(
        `${special} is a special-use name that no public site has, not a brand's domain`,
      );
    }
    expect(brandHostProblem('corp.internal')).toMatch(/special-use/);
    expect(brandHostProblem('127.0.0.1')).toBe("127.0.0.1 is an IP address, not a brand's domain");
    expect(brandHostProblem('127.1')).toMatch(/is an IP address/);
    for (const bad of ['', '-acme.com', 'acme-.com', 'a..com', 'acme.com.', 'a_b.com', '[::1]']) {
      expect(brandHostProblem(bad), bad).toBe('must be a domain name such as acme.com');
    }
    expect(brandHostProblem(`${'a'.repeat(64)}.com`)).toBe(
      'must be a domain name such as acme.com',
    );
  });

  it('allows registrable domains and names under them, private section included', () => {
    for (const ok of [
      'acme.com',
      'acme.co.uk',
      'shop.acme.co.uk',
      'acme.github.io',
      'northwind.example',
      'xn--80ak6aa92e.com',
    ]) {
      expect(brandHostProblem(ok), ok).toBeNull();
    }
    expect(registrableDomain('shop.acme.co.uk')).toBe('acme.co.uk');
    expect(registrableDomain('acme.github.io')).toBe('acme.github.io');
  });

  it('a mailbox speaks for a brand when its registrable domain is the brand’s', () => {
    expect(emailOnBrandDomain('ops@mail.acme.co.uk', 'shop.acme.co.uk')).toBe(true);
    expect(emailOnBrandDomain('ops@acme.co.uk', 'acme.co.uk')).toBe(true);
    expect(emailOnBrandDomain('OPS@ACME.CO.UK', 'acme.co.uk')).toBe(true);
    expect(emailOnBrandDomain('x@anything.co.uk', 'acme.co.uk')).toBe(false);
    expect(emailOnBrandDomain('x@co.uk', 'co.uk')).toBe(false);
    expect(emailOnBrandDomain('me@evil.github.io', 'acme.github.io')).toBe(false);
    expect(emailOnBrandDomain('me@acme.com.evil.example', 'acme.com')).toBe(false);
    expect(isMailProviderDomain('news.gmail.com')).toBe(true);
    expect(isMailProviderDomain('acme.com')).toBe(false);
  });
});
