/** Small test-data factories for the registry app's tests. */
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { asCustomerId, type CustomerRef, type EndpointCall, type Principal, type RequestContext, type Scope, type StagedFile } from '@app/contracts';

export function makeCustomer(overrides: Partial<CustomerRef> = {}): CustomerRef {
  const id = asCustomerId(randomUUID());
  return { id, domain: `c-${id.slice(0, 8)}.example`, isSandbox: false, ...overrides };
}

export function makePrincipal(
  customer: CustomerRef,
  scopes: readonly Scope[] = ['devices:read', 'devices:write', 'tags:read', 'tags:write'],
  overrides: Partial<Principal> = {},
): Principal {
  return { kind: 'token', userId: 'u-1', credentialId: 'tok-1', homeCustomer: customer, scopes, admin: '', ...overrides };
}

export function makeContext(customer: CustomerRef, overrides: Partial<RequestContext> = {}): RequestContext {
  return {
    requestId: randomUUID(),
    principal: makePrincipal(customer),
    customer,
    actor: 'token:tok-1',
    auditActor: 'token:tok-1',
    ip: '192.0.2.1',
    userAgent: 'jest',
    baseUrl: 'http://localhost:8080',
    ...overrides,
  };
}

export function call<P, Q, B>(
  ctx: RequestContext,
  parts: { params?: P; query?: Q; body?: B; file?: StagedFile; contentType?: string } = {},
): EndpointCall<P, Q, B> {
  return {
    ctx,
    params: (parts.params ?? {}) as P,
    query: (parts.query ?? {}) as Q,
    body: parts.body as B,
    ...(parts.file ? { file: parts.file, contentType: parts.contentType ?? parts.file.contentType } : {}),
  };
}

/** A random valid HW id made of characters a test can name in a path without thinking. */
export function hwid(prefix = 'dev-'): string {
  return `${prefix}${randomBytes(6).toString('hex')}`;
}

export function tag(prefix = 't'): string {
  return `${prefix}${randomBytes(4).toString('hex')}`;
}

/** PEM (SPKI) and JWK texts of a fresh Ed25519 public key. */
export function publicKeys(): { pem: string; jwk: string; privatePem: string } {
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
