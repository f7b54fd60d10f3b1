import { describe, expect, it } from '@jest/globals';
import { networkOf } from './network-of.js';

describe('networkOf', () => {
  it('cuts IPv4 to /24', () => {
    expect(networkOf('198.51.100.77')).toBe('198.51.100.0/24');
    expect(networkOf('10.0.0.1')).toBe('10.0.0.0/24');
  });

  it('cuts IPv6 to /48, however the address is written', () => {
    expect(networkOf('2001:db8:aa:bb::1')).toBe('2001:db8:aa::/48');
    expect(networkOf('2001:0db8:00aa:00bb:0000:0000:0000:0001')).toBe('2001:db8:aa::/48');
    expect(networkOf('2001:db8::1')).toBe('2001:db8:0::/48');
    expect(networkOf('::1')).toBe('0:0:0::/48');
    expect(networkOf('fe80::1%eth0')).toBe('fe80:0:0::/48');
    expect(networkOf('64:ff9b:1::192.0.2.1')).toBe('64:ff9b:1::/48');
  });

  it('shows an IPv4-mapped IPv6 address as its IPv4 network', () => {
    expect(networkOf('::ffff:203.0.113.9')).toBe('203.0.113.0/24');
  });

  it('never shows more than a network of something that is no address', () => {
    expect(networkOf('not an address')).toBe('unknown');
    expect(networkOf('')).toBe('unknown');
  });
});
