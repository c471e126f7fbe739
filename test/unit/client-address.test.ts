import { describe, expect, it } from 'vitest';
import { addressBucket } from '../../src/auth/client-address.js';

describe('addressBucket', () => {
  it('counts an IPv6 client by its /64 and an IPv4-mapped one as IPv4', () => {
    expect(addressBucket('2001:db8:1:2:aaaa::1')).toBe(addressBucket('2001:db8:1:2:ffff:1:2:3'));
    expect(addressBucket('2001:db8:1:2::1')).not.toBe(addressBucket('2001:db8:1:3::1'));
    expect(addressBucket('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(addressBucket('198.51.100.7')).toBe('198.51.100.7');
    expect(addressBucket('not an address')).toBe('not an address');
  });
});
