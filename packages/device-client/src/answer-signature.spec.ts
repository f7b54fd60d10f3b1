import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { type Jwks, verifyAnswer } from './answer-signature.js';
import { DeviceClientError } from './errors.js';

/**
 * Answers signed here with Node's crypto, written from RFC 9421 §2.5 and RFC 9530 (not with
 * the service's signer), and checked by the client's verifier.
 */
const URL_ = 'https://updates.example/firmware/acme.example/board/rev2/main/1.0/SN-1?latest=true';
const NOW = new Date('2026-12-01T12:00:00Z');
const nowSeconds = NOW.getTime() / 1000;

function keyPair(kid: string): { kid: string; privateKey: KeyObject; jwk: Jwks['keys'][number] } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { kid, privateKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'EdDSA', use: 'sig' } };
}

function signedAnswer(
  body: string,
  key: { kid: string; privateKey: KeyObject },
  options: { created?: number; expires?: number; components?: string; status?: number } = {},
): { status: number; headers: Headers; body: Uint8Array; request: { url: string } } {
  const status = options.status ?? 200;
  const digest = `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
  const created = options.created ?? nowSeconds - 10;
  const expires = options.expires ?? created + 300;
  const components = options.components ?? '"@status" "content-digest" "@path";req "@query";req';
  const params = `(${components});created=${created};expires=${expires};keyid="${key.kid}";alg="ed25519"`;
  const url = new URL(URL_);
  const values: Record<string, string> = {
    '"@status"': String(status),
    '"content-digest"': digest,
    '"@path";req': url.pathname,
    '"@query";req': url.search,
  };
  const base = [...components.split(' ').map((c) => `${c}: ${values[c]}`), `"@signature-params": ${params}`].join('\n');
  const signature = sign(null, Buffer.from(base), key.privateKey).toString('base64');
  const headers = new Headers({ 'content-digest': digest, 'signature-input': `fds=${params}`, signature: `fds=:${signature}:` });
  return { status, headers, body: new Uint8Array(Buffer.from(body)), request: { url: URL_ } };
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (err instanceof DeviceClientError) return err.code;
    throw err;
  }
  return 'accepted';
}

describe('verifyAnswer', () => {
  const current = keyPair('update-2026-11');
  const next = keyPair('update-2027-02');
  const pinned: Jwks = { keys: [current.jwk] };
  const body = JSON.stringify([{ id: 'b1', fw_version: '1.1', sha256: 'ab'.repeat(32) }]);

  it('accepts an answer signed by a pinned key over the required components', () => {
    expect(verifyAnswer(signedAnswer(body, current), { keys: pinned, now: NOW })).toMatchObject({ label: 'fds', keyid: current.kid });
  });

  it('refuses a tampered body (the digest no longer matches)', () => {
    const answer = signedAnswer(body, current);
    const tampered = { ...answer, body: new Uint8Array(Buffer.from(body.replace('1.1', '6.6'))) };
    expect(refusal(() => verifyAnswer(tampered, { keys: pinned, now: NOW }))).toBe('digest_mismatch');
  });

  it('refuses a tampered digest header (the signature covers it)', () => {
    const answer = signedAnswer(body, current);
    const other = `sha-256=:${createHash('sha256').update('other').digest('base64')}:`;
    answer.headers.set('content-digest', other);
    expect(refusal(() => verifyAnswer({ ...answer, body: new Uint8Array(Buffer.from('other')) }, { keys: pinned, now: NOW }))).toBe('signature_invalid');
  });

  it('refuses an answer for another request (the path is signed)', () => {
    const answer = signedAnswer(body, current);
    expect(refusal(() => verifyAnswer({ ...answer, request: { url: URL_.replace('SN-1', 'SN-2') } }, { keys: pinned, now: NOW }))).toBe('signature_invalid');
  });

  it('refuses a signature by a wrong key that claims a pinned keyid', () => {
    const impostor = { kid: current.kid, privateKey: generateKeyPairSync('ed25519').privateKey };
    expect(refusal(() => verifyAnswer(signedAnswer(body, impostor), { keys: pinned, now: NOW }))).toBe('signature_invalid');
  });

  it('refuses an expired signature and one created in the future', () => {
    const expired = signedAnswer(body, current, { created: nowSeconds - 1000, expires: nowSeconds - 700 });
    expect(refusal(() => verifyAnswer(expired, { keys: pinned, now: NOW }))).toBe('signature_expired');
    const future = signedAnswer(body, current, { created: nowSeconds + 600 });
    expect(refusal(() => verifyAnswer(future, { keys: pinned, now: NOW }))).toBe('signature_expired');
  });

  it('a rotated key: refused until pinned, accepted with old and new pinned during the overlap', () => {
    const rotated = signedAnswer(body, next);
    expect(refusal(() => verifyAnswer(rotated, { keys: pinned, now: NOW }))).toBe('signature_key_unknown');
    const overlap: Jwks = { keys: [current.jwk, next.jwk] };
    expect(verifyAnswer(rotated, { keys: overlap, now: NOW }).keyid).toBe(next.kid);
    expect(verifyAnswer(signedAnswer(body, current), { keys: overlap, now: NOW }).keyid).toBe(current.kid);
  });

  it('refuses an unsigned answer and one whose signature leaves out a required component', () => {
    const answer = signedAnswer(body, current);
    const unsigned = new Headers(answer.headers);
    unsigned.delete('signature');
    expect(refusal(() => verifyAnswer({ ...answer, headers: unsigned }, { keys: pinned, now: NOW }))).toBe('signature_missing');
    const partial = signedAnswer(body, current, { components: '"@status" "content-digest"' });
    expect(refusal(() => verifyAnswer(partial, { keys: pinned, now: NOW }))).toBe('signature_coverage');
  });
});
