import { describe, expect, it } from '@jest/globals';
import type { EnforcedIpBlock } from '@app/contracts';
import { IpBlockMatcher } from './ip-block-matcher.js';

const permanent = (cidr: string): EnforcedIpBlock => ({ cidr, expires_at: null });

/** n distinct /32 blocks in 10.0.0.0/8, none of them 192.0.2.x or 203.0.113.x. */
function manyBlocks(n: number): EnforcedIpBlock[] {
  return Array.from({ length: n }, (_, i) => permanent(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}/32`));
}

describe('IpBlockMatcher', () => {
  it('matches addresses inside a blocked network and nothing else', () => {
    const matcher = new IpBlockMatcher([permanent('203.0.113.0/24'), permanent('198.51.100.7/32'), permanent('2001:db8::/32')]);
    expect(matcher.matches('203.0.113.200')).toBe(true);
    expect(matcher.matches('203.0.114.1')).toBe(false);
    expect(matcher.matches('198.51.100.7')).toBe(true);
    expect(matcher.matches('198.51.100.8')).toBe(false);
    expect(matcher.matches('2001:db8:1::5')).toBe(true);
    expect(matcher.matches('2001:db9::5')).toBe(false);
    expect(matcher.matches('not an address')).toBe(false);
  });

  it('matches an IPv4-mapped IPv6 client address against IPv4 blocks', () => {
    const matcher = new IpBlockMatcher([permanent('127.0.0.77/32')]);
    expect(matcher.matches('::ffff:127.0.0.77')).toBe(true);
    expect(matcher.matches('::ffff:127.0.0.78')).toBe(false);
  });

  it('stops matching at expires_at', () => {
    const expiresAt = Date.parse('2030-01-01T00:00:00Z');
    const matcher = new IpBlockMatcher([{ cidr: '192.0.2.1/32', expires_at: new Date(expiresAt).toISOString() }]);
    expect(matcher.matches('192.0.2.1', expiresAt - 1)).toBe(true);
    expect(matcher.matches('192.0.2.1', expiresAt)).toBe(false);
  });

  it('a /0 blocks everything of its family', () => {
    const matcher = new IpBlockMatcher([permanent('0.0.0.0/0')]);
    expect(matcher.matches('8.8.8.8')).toBe(true);
    expect(matcher.matches('::1')).toBe(false);
  });

  it('answers the same, at the same cost order, with 10 or 10,000 blocks', () => {
    const small = new IpBlockMatcher([...manyBlocks(10), permanent('192.0.2.0/24')]);
    const large = new IpBlockMatcher([...manyBlocks(10_000), permanent('192.0.2.0/24')]);
    expect(large.size).toBe(10_001);
    for (const ip of ['192.0.2.9', '203.0.113.1', '10.0.0.5', '10.0.39.15']) {
      const inLarge = large.matches(ip);
      expect(inLarge).toBe(ip === '10.0.39.15' ? true : small.matches(ip));
    }
    const time = (matcher: IpBlockMatcher): number => {
      const rounds = 20_000;
      const started = performance.now();
      for (let i = 0; i < rounds; i++) matcher.matches('203.0.113.1');
      return performance.now() - started;
    };
    time(small);
    time(large);
    const [smallMs, largeMs] = [Math.min(time(small), time(small)), Math.min(time(large), time(large))];
    // Two prefix lengths in both: a list scan would take about 1,000 times as long.
    expect(largeMs).toBeLessThan(smallMs * 10 + 5);
  });
});
