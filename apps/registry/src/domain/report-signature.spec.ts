import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { DeviceReportErrors } from '@app/contracts';
import { requireSigned, verifiedPayload } from './report-signature.js';

/** Reports signed here with Node's crypto as docs/device-protocol.md describes (not with the device client). */
const claims = {
  domain: 'acme.example',
  hwid: 'SN-1',
  build_id: '00000000-0000-4000-8000-000000000001',
  fw_version: '1.1',
  outcome: 'failed',
  report_id: 'r-12345678',
  iat: 1,
};
const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

function jws(alg: string, key: KeyObject, payload: unknown = claims) {
  const protectedHeader = b64({ alg });
  const body = b64(payload);
  const input = Buffer.from(`${protectedHeader}.${body}`);
  const signature =
    alg === 'EdDSA' ? sign(null, input, key) : alg === 'ES256' ? sign('sha256', input, { key, dsaEncoding: 'ieee-p1363' }) : sign('sha256', input, key);
  return { protected: protectedHeader, payload: body, signature: signature.toString('base64url') };
}

const pem = (key: KeyObject) => key.export({ type: 'spki', format: 'pem' }).toString();
const ed = generateKeyPairSync('ed25519');
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = generateKeyPairSync('ed25519');

function code(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    return (err as { reason?: string }).reason;
  }
}

describe('device report signature', () => {
  it('accepts EdDSA, ES256 and RS256 by a registered key (PEM or JWK text), among other keys', () => {
    expect(verifiedPayload(jws('EdDSA', ed.privateKey), [pem(other.publicKey), pem(ed.publicKey)])).toEqual(claims);
    expect(verifiedPayload(jws('ES256', ec.privateKey), [JSON.stringify(ec.publicKey.export({ format: 'jwk' }))])).toEqual(claims);
    expect(verifiedPayload(jws('RS256', rsa.privateKey), [pem(rsa.publicKey)])).toEqual(claims);
  });

  it('refuses an unsigned report, a wrong key, no keys, a tampered payload and an algorithm that does not fit the key', () => {
    expect(code(() => requireSigned({ payload: b64(claims) }))).toBe(DeviceReportErrors.device_report_unsigned.code);
    const invalid = DeviceReportErrors.device_report_signature_invalid.code;
    expect(code(() => verifiedPayload(jws('EdDSA', other.privateKey), [pem(ed.publicKey)]))).toBe(invalid);
    expect(code(() => verifiedPayload(jws('EdDSA', ed.privateKey), []))).toBe(invalid);
    const tampered = { ...jws('EdDSA', ed.privateKey), payload: b64({ ...claims, outcome: 'installed' }) };
    expect(code(() => verifiedPayload(tampered, [pem(ed.publicKey)]))).toBe(invalid);
    expect(code(() => verifiedPayload({ ...jws('EdDSA', ed.privateKey), protected: b64({ alg: 'none' }) }, [pem(ed.publicKey)]))).toBe(invalid);
    expect(code(() => verifiedPayload(jws('RS256', rsa.privateKey), [pem(ed.publicKey)]))).toBe(invalid);
  });
});
