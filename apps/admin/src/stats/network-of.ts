import { isIPv4, isIPv6 } from 'node:net';

/**
 * An address cut to its network, as a customer sees its access log: IPv4 to /24
 * (`203.0.113.0/24`), IPv6 to /48 (`2001:db8:1::/48`); an IPv4-mapped IPv6 address as IPv4.
 * Anything else (not an address) comes back as `unknown`: a customer never sees more than a network.
 */
export function networkOf(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const v4 = mapped ? mapped[1] : address;
  if (isIPv4(v4)) {
    const [a, b, c] = v4.split('.');
    return `${a}.${b}.${c}.0/24`;
  }
  if (isIPv6(address)) {
    const groups = expandIPv6(address);
    const head = groups.slice(0, 3).map((g) => g.replace(/^0+(?=.)/, ''));
    return `${head.join(':')}::/48`;
  }
  return 'unknown';
}

/** The eight groups of an IPv6 address (a zone id dropped, an embedded IPv4 tail as two groups). */
function expandIPv6(address: string): string[] {
  let text = address.split('%')[0].toLowerCase();
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [, a, b, c, d] = tail.map(Number);
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [left, right] = text.includes('::') ? text.split('::') : [text, undefined];
  const leftGroups = left ? left.split(':') : [];
  if (right === undefined) return leftGroups;
  const rightGroups = right ? right.split(':') : [];
  return [...leftGroups, ...Array<string>(8 - leftGroups.length - rightGroups.length).fill('0'), ...rightGroups];
}
