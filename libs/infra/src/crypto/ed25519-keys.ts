import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';

/** An Ed25519 key pair as an app stores it (in its own schema; the private half never leaves the app). */
export interface StoredEd25519Key {
  /** `prefix` + the RFC 7638 thumbprint of the public JWK. */
  readonly kid: string;
  /** base64url public key (the JWK `x`). */
  readonly publicX: string;
  /** PKCS#8 PEM. */
  readonly privatePkcs8: string;
}

/** The public JWK of an Ed25519 key, as published in /.well-known/jwks.json. */
export interface Ed25519PublicJwk {
  readonly alg: 'EdDSA';
  readonly crv: 'Ed25519';
  readonly kid: string;
  readonly kty: 'OKP';
  readonly use: 'sig';
  readonly x: string;
}

/**
 * A new Ed25519 key pair named by its thumbprint (with `prefix`, which tells keys of different
 * uses apart in one published set: identity's token keys have none, update answers' `update-`).
 */
export async function generateEd25519Key(prefix = ''): Promise<StoredEd25519Key> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x!;
  const thumbprint = await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x });
  return { kid: `${prefix}${thumbprint}`, publicX: x, privatePkcs8: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString() };
}

export function publicJwkOf(key: { readonly kid: string; readonly publicX: string }): Ed25519PublicJwk {
  return { alg: 'EdDSA', crv: 'Ed25519', kid: key.kid, kty: 'OKP', use: 'sig', x: key.publicX };
}

export function privateKeyOf(key: { readonly privatePkcs8: string }): KeyObject {
  return createPrivateKey(key.privatePkcs8);
}
