import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

/** The address a request is attributed to (limits, request log, login limits): the one place that decides it. */
export type ClientAddressOf = (req: IncomingMessage) => string;

/** IPv4 clients of a dual-stack socket are reported as IPv4. */
function plain(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

function socketAddress(req: IncomingMessage): string {
  return plain(req.socket.remoteAddress ?? '');
}

/**
 * Compiled once at start from TRUSTED_PROXIES (docs/operations.md "Behind a proxy"): the
 * socket's address unless the peer is trusted, then the rightmost X-Forwarded-For address that
 * is not trusted. An entry that is no address (a port, garbage) falls back to the last trusted
 * hop, which vouched for it.
 */
export function clientAddressResolver(trustedProxies: readonly string[]): ClientAddressOf {
  if (trustedProxies.length === 0) return socketAddress;
  const trust = proxyaddr.compile([...trustedProxies]);
  return (req) => {
    // [socket, nearest hop, ...] up to and including the first untrusted address.
    const chain = proxyaddr.all(req, trust);
    const candidate = chain[chain.length - 1] ?? '';
    if (isIP(candidate)) return plain(candidate);
    return plain(chain[chain.length - 2] ?? req.socket.remoteAddress ?? '');
  };
}
