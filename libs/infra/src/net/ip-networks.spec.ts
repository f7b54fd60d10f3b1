import { describe, expect, it } from '@jest/globals';
import { networkContains, parseIpAddress, parseIpNetwork } from './ip-networks.js';

function cidrOf(input: string): string {
  const network = parseIpNetwork(input);
  if ('error' in network) throw new Error(network.error);
  return network.cidr;
}

describe('parseIpNetwork', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7/32'],
    [' 203.0.113.7 ', '203.0.113.7/32'],
    ['203.0.113.7/24', '203.0.113.0/24'],
    ['10.1.2.3/8', '10.0.0.0/8'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['2001:db8::1', '2001:db8::1/128'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1/128'],
    ['2001:db8:abcd:1234::1/32', '2001:db8::/32'],
    ['::/0', '::/0'],
    ['::ffff:198.51.100.9', '198.51.100.9/32'],
    ['::ffff:198.51.100.9/120', '198.51.100.0/24'],
    ['::ffff:c633:6409', '198.51.100.9/32'],
  ])('normalises %j to %s', (input, cidr) => {
    expect(cidrOf(input)).toBe(cidr);
  });

  it.each([
    '',
    'x',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '01.2.3.4',
    '1.2.3.4/33',
    '1.2.3.4/',
    '1.2.3.4/-1',
    '1.2.3.4/a',
    '2001:db8::/129',
    'fe80::1%eth0',
    '1::2::3',
    '127.1',
  ])('refuses %j with a message', (input) => {
    const network = parseIpNetwork(input);
    expect(network).toEqual({ error: expect.stringMatching(/^cidr /) });
  });
});

describe('parseIpAddress', () => {
  it('reads IPv4, IPv6 and IPv4-mapped IPv6 as IPv4', () => {
    expect(parseIpAddress('127.0.0.1')).toEqual({ family: 4, value: 0x7f000001 });
    expect(parseIpAddress('::ffff:127.0.0.1')).toEqual({ family: 4, value: 0x7f000001 });
    expect(parseIpAddress('::1')).toEqual({ family: 6, value: 1n });
    expect(parseIpAddress('nonsense')).toBeNull();
  });
});

describe('networkContains', () => {
  const network = (cidr: string) => {
    const parsed = parseIpNetwork(cidr);
    if ('error' in parsed) throw new Error(parsed.error);
    return parsed;
  };

  it.each([
    ['203.0.113.0/24', '203.0.113.77', true],
    ['203.0.113.0/24', '::ffff:203.0.113.77', true],
    ['203.0.113.0/24', '203.0.114.1', false],
    ['203.0.113.7', '203.0.113.7', true],
    ['203.0.113.7', '203.0.113.8', false],
    ['0.0.0.0/0', '198.51.100.1', true],
    ['0.0.0.0/0', '::1', false],
    ['::/0', '127.0.0.1', false],
    ['::/0', '2001:db8::1', true],
    ['2001:db8::/32', '2001:db8:ffff::1', true],
    ['2001:db8::/32', '2001:db9::1', false],
    ['::1', '::1', true],
    ['127.0.0.0/8', 'not an address', false],
  ])('%s contains %s: %s', (cidr, ip, contained) => {
    expect(networkContains(network(cidr), ip)).toBe(contained);
  });
});
