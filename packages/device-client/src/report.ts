import { randomUUID, type KeyObject, sign } from 'node:crypto';

/**
 * A device's install report, signed with the device's own key as a flattened JWS (RFC 7515
 * §7.2.2): `{protected, payload, signature}`, base64url without padding, the signature over
 * `protected + "." + payload`. The service checks it against the public keys registered on
 * the device (docs/device-protocol.md "Reporting an outcome").
 */

export type ReportOutcome = 'installed' | 'failed' | 'rolled_back';

export interface InstallReport {
  readonly buildId: string;
  readonly fwVersion: string;
  readonly outcome: ReportOutcome;
  /** Why it failed or rolled back (at most 500 characters). */
  readonly reason?: string;
}

export interface ReportClaims {
  readonly domain: string;
  readonly hwid: string;
  readonly build_id: string;
  readonly fw_version: string;
  readonly outcome: ReportOutcome;
  readonly reason?: string;
  /** Unique per device: the service stores a report id once (a replay is answered, not stored again). */
  readonly report_id: string;
  /** Seconds since the epoch; the service refuses reports created too far from its clock. */
  readonly iat: number;
}

export interface FlattenedJws {
  readonly protected: string;
  readonly payload: string;
  readonly signature: string;
}

/** The JWS algorithm for a device key: Ed25519 (EdDSA), EC P-256 (ES256) or RSA (RS256). */
export function algorithmOf(key: KeyObject): 'EdDSA' | 'ES256' | 'RS256' {
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  throw new Error(`device keys of type ${key.asymmetricKeyType} are not supported (Ed25519, EC P-256 or RSA)`);
}

const b64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

export function reportClaims(device: { domain: string; hwid: string }, report: InstallReport, now: Date = new Date()): ReportClaims {
  return {
    domain: device.domain,
    hwid: device.hwid,
    build_id: report.buildId,
    fw_version: report.fwVersion,
    outcome: report.outcome,
    ...(report.reason !== undefined ? { reason: report.reason } : {}),
    report_id: randomUUID(),
    iat: Math.floor(now.getTime() / 1000),
  };
}

/** Signs the claims with the device's private key. */
export function signReport(claims: ReportClaims, privateKey: KeyObject): FlattenedJws {
  const alg = algorithmOf(privateKey);
  const protectedHeader = b64url(JSON.stringify({ alg }));
  const payload = b64url(JSON.stringify(claims));
  const input = Buffer.from(`${protectedHeader}.${payload}`, 'ascii');
  const signature =
    alg === 'EdDSA'
      ? sign(null, input, privateKey)
      : alg === 'ES256'
        ? sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' })
        : sign('sha256', input, privateKey);
  return { protected: protectedHeader, payload, signature: b64url(signature) };
}

/** Where a device reports: `POST /firmware/{domain}/reports/{hwid}`. */
export function reportUrl(baseUrl: string, domain: string, hwid: string): string {
  return `${baseUrl.replace(/\/$/, '')}/firmware/${encodeURIComponent(domain)}/reports/${encodeURIComponent(hwid)}`;
}
