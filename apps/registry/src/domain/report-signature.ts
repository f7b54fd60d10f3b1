import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { DeviceReportErrors, REPORT_ALGORITHMS } from '@app/contracts';

/**
 * A device report's signature (docs/device-protocol.md "Reporting an outcome"): a flattened
 * JWS (RFC 7515 §7.2.2) over `protected + "." + payload`, by one of the public keys registered
 * on the device (PEM public key or certificate, or JWK JSON text: the registry's `keys`).
 * Ed25519 (EdDSA), EC P-256 (ES256, the raw r||s form of JWS) and RSA (RS256): what a device's
 * crypto library offers. Any refusal is the same answer whatever the cause (no such device,
 * no keys, wrong key, bad signature), so a report does not tell who exists.
 */

export interface SignedReport {
  readonly protected?: string;
  readonly payload: string;
  readonly signature?: string;
}

type Algorithm = (typeof REPORT_ALGORITHMS)[number];

function algorithmOf(protectedHeader: string): Algorithm {
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(protectedHeader, 'base64url').toString('utf8'));
  } catch {
    throw DeviceReportErrors.device_report_signature_invalid();
  }
  if (!header || typeof header !== 'object' || Array.isArray(header)) throw DeviceReportErrors.device_report_signature_invalid();
  const { alg, crit } = header as { alg?: unknown; crit?: unknown };
  // RFC 7515 §4.1.11: a critical extension this service does not know makes the JWS invalid.
  if (crit !== undefined || !REPORT_ALGORITHMS.includes(alg as Algorithm)) throw DeviceReportErrors.device_report_signature_invalid();
  return alg as Algorithm;
}

function publicKeyOf(text: string): KeyObject | null {
  try {
    const trimmed = text.trim();
    return trimmed.startsWith('{')
      ? createPublicKey({ key: JSON.parse(trimmed) as import('node:crypto').JsonWebKey, format: 'jwk' })
      : createPublicKey(trimmed);
  } catch {
    return null;
  }
}

function fits(key: KeyObject, alg: Algorithm): boolean {
  if (alg === 'EdDSA') return key.asymmetricKeyType === 'ed25519';
  if (alg === 'ES256') return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  return key.asymmetricKeyType === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= 2048;
}

function verifies(key: KeyObject, alg: Algorithm, input: Buffer, signature: Buffer): boolean {
  try {
    if (alg === 'EdDSA') return verify(null, input, key, signature);
    if (alg === 'ES256') return verify('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, signature);
    return verify('sha256', input, key, signature);
  } catch {
    return false;
  }
}

/** Throws device_report_unsigned when the body carries no signature. */
export function requireSigned(report: SignedReport): asserts report is Required<SignedReport> {
  if (!report.protected || !report.signature) throw DeviceReportErrors.device_report_unsigned();
}

/** The decoded payload when one of `keys` signed it; device_report_signature_invalid otherwise. */
export function verifiedPayload(report: Required<SignedReport>, keys: readonly string[]): unknown {
  const alg = algorithmOf(report.protected);
  const input = Buffer.from(`${report.protected}.${report.payload}`, 'ascii');
  const signature = Buffer.from(report.signature, 'base64url');
  const signed = keys.some((text) => {
    const key = publicKeyOf(text);
    return key !== null && fits(key, alg) && verifies(key, alg, input, signature);
  });
  if (!signed) throw DeviceReportErrors.device_report_signature_invalid();
  try {
    return JSON.parse(Buffer.from(report.payload, 'base64url').toString('utf8'));
  } catch {
    throw DeviceReportErrors.device_report_invalid({ problem: 'the payload is not base64url of JSON' });
  }
}
