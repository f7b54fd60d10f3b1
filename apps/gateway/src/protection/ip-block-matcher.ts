import type { EnforcedIpBlock } from '@app/contracts';
import { maskIpv4, maskIpv6, parseIpAddress, parseIpNetwork } from '@app/infra';

/** Network address → the time the block ends (ms since the epoch; Infinity: permanent). */
type Networks<K> = Map<K, number>;

/**
 * The active IP blocks as a prefix structure: per prefix length, the set of network addresses
 * blocked at that length. An address is looked up once per prefix length present (at most 33
 * for IPv4, 129 for IPv6), so the cost does not grow with the number of blocks. A block stops
 * matching at its expires_at, whenever the list is next re-read.
 */
export class IpBlockMatcher {
  static readonly EMPTY = new IpBlockMatcher([]);

  private readonly v4 = new Map<number, Networks<number>>();
  private readonly v6 = new Map<number, Networks<bigint>>();
  /** The prefix lengths present, longest first. */
  private readonly v4Prefixes: number[];
  private readonly v6Prefixes: number[];
  readonly size: number;

  constructor(blocks: readonly EnforcedIpBlock[]) {
    let size = 0;
    for (const block of blocks) {
      const network = parseIpNetwork(block.cidr);
      if ('error' in network) continue;
      const until = block.expires_at === null ? Infinity : Date.parse(block.expires_at);
      if (Number.isNaN(until)) continue;
      if (network.family === 4) setLater(this.v4, network.prefix, network.value as number, until);
      else setLater(this.v6, network.prefix, network.value as bigint, until);
      size++;
    }
    this.size = size;
    this.v4Prefixes = [...this.v4.keys()].sort((a, b) => b - a);
    this.v6Prefixes = [...this.v6.keys()].sort((a, b) => b - a);
  }

  /** Whether a block in force at `now` covers the address (IPv4-mapped IPv6 is matched as IPv4). */
  matches(ip: string, now = Date.now()): boolean {
    if (this.size === 0) return false;
    const address = parseIpAddress(ip);
    if (!address) return false;
    if (address.family === 4) {
      for (const prefix of this.v4Prefixes) {
        const until = this.v4.get(prefix)!.get(maskIpv4(address.value, prefix));
        if (until !== undefined && until > now) return true;
      }
      return false;
    }
    for (const prefix of this.v6Prefixes) {
      const until = this.v6.get(prefix)!.get(maskIpv6(address.value, prefix));
      if (until !== undefined && until > now) return true;
    }
    return false;
  }
}

function setLater<K>(byPrefix: Map<number, Networks<K>>, prefix: number, key: K, until: number): void {
  let networks = byPrefix.get(prefix);
  if (!networks) byPrefix.set(prefix, (networks = new Map<K, number>()));
  networks.set(key, Math.max(networks.get(key) ?? 0, until));
}
