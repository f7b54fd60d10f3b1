/**
 * Test factories for the registry app's tests. The request-side ones (makeCustomer, makePrincipal, makeContext, makeCall)
 * come from '@app/testing'.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { CustomerRef, Principal, RequestContext, Scope } from '@app/contracts';
import { makeContext, makePrincipal, type PrincipalOptions } from '@app/testing';

/** The scopes of the API token the registry's tests act with unless they say otherwise. */
export const DEVICE_SCOPES: readonly Scope[] = ['devices:read', 'devices:write', 'tags:read', 'tags:write'];

/** The API token 'tok-1' of user 'u-1', home customer `customer`, holding `scopes`. */
export function makeDeviceToken(customer: CustomerRef, scopes: readonly Scope[] = DEVICE_SCOPES, options: PrincipalOptions = {}): Principal {
  return makePrincipal(customer, { kind: 'token', userId: 'u-1', credentialId: 'tok-1', scopes, ...options });
}

/** A request on `customer` by the API token of makeDeviceToken (actor 'token:tok-1' unless overridden). */
export function makeDeviceContext(customer: CustomerRef, overrides: Partial<RequestContext> = {}): RequestContext {
  return makeContext(customer, { principal: makeDeviceToken(customer), actor: 'token:tok-1', auditActor: 'token:tok-1', ...overrides });
}

/** A random valid HW id made of characters a test can name in a path without thinking. */
export function makeHwid(prefix = 'dev-'): string {
  return `${prefix}${randomBytes(6).toString('hex')}`;
}

export function makeTag(prefix = 't'): string {
  return `${prefix}${randomBytes(4).toString('hex')}`;
}

/** PEM (SPKI) and JWK texts of a fresh Ed25519 public key. */
export function makePublicKeys(): { pem: string; jwk: string; privatePem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    pem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    jwk: JSON.stringify(publicKey.export({ format: 'jwk' })),
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/** Chunks of a text, split at awkward places (inside multi-byte characters too). */
export function* chunked(text: string, size: number): Generator<Buffer> {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

export async function* asAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  for (const item of items) yield item;
}

export async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

/** A self-signed Ed25519 certificate (PEM), as a device key may be given. */
export const DEVICE_CERTIFICATE = `-----BEGIN CERTIFICATE-----
MIIBQjCB9aADAgECAhREarYkQfpiUUh8tyCAvGk1l80nnzAFBgMrZXAwFjEUMBIG
A1UEAwwLZGV2aWNlLXRlc3QwIBcNMjYxMTIxMDM1NTAxWhgPMjEyNjEwMjgwMzU1
MDFaMBYxFDASBgNVBAMMC2RldmljZS10ZXN0MCowBQYDK2VwAyEABaEM2eRGqEvV
PO/kRx41V6lf3sSF7IAtDsERCEbFuIajUzBRMB0GA1UdDgQWBBSUU3YhA/MVUk0K
EClfPJBl+t9b/TAfBgNVHSMEGDAWgBSUU3YhA/MVUk0KEClfPJBl+t9b/TAPBgNV
HRMBAf8EBTADAQH/MAUGAytlcANBAGgDTGqWX2cwxpZDartsDSlNeTqFngdWgcMs
kFmM1cYjukmKZSQsXAvnSuk9627qYE3BdlU1v16MBTunW7S/tgM=
-----END CERTIFICATE-----\n`;
