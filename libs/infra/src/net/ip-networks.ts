import ipaddr from 'ipaddr.js';

/**
 * IP addresses and CIDR networks as IP blocks store and match them (docs/api.md "Maintenance
 * mode and IP blocks"): an address is the /32 or /128 network of itself, a network is
 * normalised to its network address, and an IPv4-mapped IPv6 address (::ffff:a.b.c.d) is the
 * IPv4 address. IPv4 values are unsigned 32-bit numbers, IPv6 ones 128-bit bigints.
 */
export type IpAddress = { readonly family: 4; readonly value: number } | { readonly family: 6; readonly value: bigint };

export interface IpNetwork {
  readonly family: 4 | 6;
  readonly prefix: number;
  /** The network address (host bits zero). */
  readonly value: number | bigint;
  /** Normalised text: `203.0.113.0/24`, `2001:db8::/32`. */
  readonly cidr: string;
}

const IPV4_DOTTED = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const PREFIX = /^\d{1,3}$/;
const MAPPED_PREFIX = 96;
const IPV6_ALL = (1n << 128n) - 1n;

/** An IPv4 address in four-part decimal, without the cost of a general parser (the gateway checks every request). */
function ipv4Value(text: string): number | null {
  const m = IPV4_DOTTED.exec(text);
  if (!m) return null;
  let value = 0;
  for (let i = 1; i <= 4; i++) {
    const part = Number(m[i]);
    if (part > 255 || (m[i].length > 1 && m[i][0] === '0')) return null;
    value = value * 256 + part;
  }
  return value;
}

function ipv6Parts(text: string): number[] | null {
  if (text.includes('%') || !ipaddr.IPv6.isValid(text)) return null;
  return ipaddr.IPv6.parse(text).toByteArray();
}

function bytesToBigint(bytes: readonly number[]): bigint {
  let value = 0n;
  for (const b of bytes) value = (value << 8n) | BigInt(b);
  return value;
}

function isMapped(bytes: readonly number[]): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

/** The address, or null when the text is none; IPv4-mapped IPv6 becomes IPv4. */
export function parseIpAddress(text: string): IpAddress | null {
  const v4 = ipv4Value(text);
  if (v4 !== null) return { family: 4, value: v4 };
  const bytes = ipv6Parts(text);
  if (!bytes) return null;
  if (isMapped(bytes)) return { family: 4, value: ((bytes[12] << 24) | (bytes[13] << 16) | (bytes[14] << 8) | bytes[15]) >>> 0 };
  return { family: 6, value: bytesToBigint(bytes) };
}

export function maskIpv4(value: number, prefix: number): number {
  return prefix === 0 ? 0 : (value & (0xffffffff << (32 - prefix))) >>> 0;
}

export function maskIpv6(value: bigint, prefix: number): bigint {
  return prefix === 0 ? 0n : value & ((IPV6_ALL << BigInt(128 - prefix)) & IPV6_ALL);
}

function ipv4Text(value: number): string {
  return `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}

function ipv6Text(value: bigint): string {
  const bytes: number[] = [];
  for (let shift = 120n; shift >= 0n; shift -= 8n) bytes.push(Number((value >> shift) & 255n));
  return ipaddr.fromByteArray(bytes).toString();
}

/**
 * An address or CIDR network, normalised; an error message saying what is wrong otherwise.
 * `::ffff:a.b.c.d/p` with p of 96 or more is the IPv4 network a.b.c.d/(p-96).
 */
export function parseIpNetwork(input: string): IpNetwork | { readonly error: string } {
  const text = input.trim();
  const slash = text.indexOf('/');
  const addressText = slash === -1 ? text : text.slice(0, slash);
  const prefixText = slash === -1 ? null : text.slice(slash + 1);
  const v4 = ipv4Value(addressText);
  const bytes = v4 === null ? ipv6Parts(addressText) : null;
  if (v4 === null && !bytes) return { error: `cidr must be an IPv4 or IPv6 address or CIDR network: ${JSON.stringify(input.slice(0, 100))} is not one` };
  if (prefixText !== null && !PREFIX.test(prefixText)) return { error: `cidr prefix length must be a number: ${JSON.stringify(input.slice(0, 100))}` };
  let family: 4 | 6 = v4 !== null ? 4 : 6;
  let prefix = prefixText === null ? (family === 4 ? 32 : 128) : Number(prefixText);
  const max = family === 4 ? 32 : 128;
  if (prefix > max) return { error: `cidr prefix length must be at most ${max} for IPv${family}` };
  if (family === 4) {
    const value = maskIpv4(v4!, prefix);
    return { family, prefix, value, cidr: `${ipv4Text(value)}/${prefix}` };
  }
  if (isMapped(bytes!) && prefix >= MAPPED_PREFIX) {
    family = 4;
    prefix -= MAPPED_PREFIX;
    const value = maskIpv4(((bytes![12] << 24) | (bytes![13] << 16) | (bytes![14] << 8) | bytes![15]) >>> 0, prefix);
    return { family, prefix, value, cidr: `${ipv4Text(value)}/${prefix}` };
  }
  const value = maskIpv6(bytesToBigint(bytes!), prefix);
  return { family, prefix, value, cidr: `${ipv6Text(value)}/${prefix}` };
}

/** Whether the network contains the address (an IPv4-mapped IPv6 address as its IPv4 address). */
export function networkContains(network: IpNetwork, ip: string): boolean {
  const address = parseIpAddress(ip);
  if (!address || address.family !== network.family) return false;
  return address.family === 4 ? maskIpv4(address.value, network.prefix) === network.value : maskIpv6(address.value, network.prefix) === network.value;
}
