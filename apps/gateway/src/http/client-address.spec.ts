import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '@app/infra';
import { clientAddressResolver } from './client-address.js';

/** A request as node:http hands it over: the socket's peer and the headers. */
function request(peer: string, forwardedFor?: string): IncomingMessage {
  const socket = { remoteAddress: peer };
  return { socket, connection: socket, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } } as unknown as IncomingMessage;
}

describe('client address (TRUSTED_PROXIES)', () => {
  it('without trusted proxies is the socket address, X-Forwarded-For ignored', () => {
    const of = clientAddressResolver([]);
    expect(of(request('203.0.113.7', '198.51.100.1'))).toBe('203.0.113.7');
    expect(of(request('::ffff:203.0.113.7'))).toBe('203.0.113.7');
    expect(of(request('2001:db8::1'))).toBe('2001:db8::1');
  });

  it('from a trusted peer is the rightmost untrusted X-Forwarded-For address', () => {
    const of = clientAddressResolver(['10.0.0.0/8', '192.168.1.1']);
    expect(of(request('10.1.2.3', '198.51.100.1'))).toBe('198.51.100.1');
    // The client wrote the first entry itself; the proxies appended the rest.
    expect(of(request('10.1.2.3', '1.1.1.1, 198.51.100.1, 192.168.1.1, 10.9.9.9'))).toBe('198.51.100.1');
    expect(of(request('::ffff:10.1.2.3', '::ffff:198.51.100.1'))).toBe('198.51.100.1');
    expect(of(request('10.1.2.3', '2001:db8::5'))).toBe('2001:db8::5');
  });

  it('from an untrusted peer ignores X-Forwarded-For', () => {
    const of = clientAddressResolver(['10.0.0.0/8']);
    expect(of(request('203.0.113.7', '10.1.1.1, 198.51.100.1'))).toBe('203.0.113.7');
    expect(of(request('::ffff:203.0.113.7', '198.51.100.1'))).toBe('203.0.113.7');
  });

  it('from a trusted peer without X-Forwarded-For, or all of it trusted, is the farthest trusted hop', () => {
    const of = clientAddressResolver(['10.0.0.0/8']);
    expect(of(request('10.1.2.3'))).toBe('10.1.2.3');
    expect(of(request('10.1.2.3', '10.4.4.4'))).toBe('10.4.4.4');
  });

  it('an entry that is no address falls back to the hop that forwarded it', () => {
    const of = clientAddressResolver(['10.0.0.0/8']);
    expect(of(request('10.1.2.3', 'not-an-ip'))).toBe('10.1.2.3');
    expect(of(request('10.1.2.3', 'x, 198.51.100.1:4711, 10.4.4.4'))).toBe('10.4.4.4');
  });

  it('is configured by TRUSTED_PROXIES; an invalid entry stops the start', () => {
    expect(loadConfig({}).trustedProxies).toEqual([]);
    expect(loadConfig({ TRUSTED_PROXIES: ' 10.0.0.0/8 , fd00::/8,loopback ' }).trustedProxies).toEqual(['10.0.0.0/8', 'fd00::/8', 'loopback']);
    expect(() => loadConfig({ TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUSTED_PROXIES: 'proxy.example.com' })).toThrow(ConfigError);
  });
});
