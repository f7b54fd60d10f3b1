import { describe, expect, it } from '@jest/globals';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { type PublicJwk, verifyAnswer } from '@app/testing';
import { contentDigestOf, signAnswer, signatureBase, signatureParams } from './answer-signature.js';
import { AnswerSigner, SIGNATURE_REUSE_SECONDS } from './answer-signer.js';
import type { UpdateSigningKeys } from './update-signing-keys.js';

const keyPair = (kid: string): { signer: { kid: string; key: KeyObject }; jwk: PublicJwk } => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x!;
  return { signer: { kid, key: privateKey }, jwk: { kid, kty: 'OKP', crv: 'Ed25519', x } };
};

describe('update-answer signature (docs/api.md "Signed answers")', () => {
  it('builds the documented signature base, line by line', () => {
    const params = signatureParams(1764400000, 'update-abc');
    expect(params).toBe('("@status" "content-digest" "@path";req "@query";req);created=1764400000;expires=1764400300;keyid="update-abc";alg="ed25519"');
    expect(signatureBase(200, 'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:', '/firmware/a/b/c/d/1.0/SN-1', 'type=all', params)).toBe(
      [
        '"@status": 200',
        '"content-digest": sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:',
        '"@path";req: /firmware/a/b/c/d/1.0/SN-1',
        '"@query";req: ?type=all',
        `"@signature-params": ${params}`,
      ].join('\n'),
    );
    expect(signatureBase(200, 'd', '/p', '', params).split('\n')[3]).toBe('"@query";req: ?'); // no query: "?" alone
  });

  it('Content-Digest is RFC 9530 sha-256 of the UTF-8 body', () => {
    expect(contentDigestOf('{"hello": "world"}')).toBe('sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:'); // RFC 9530 appendix example
  });

  it('verifies with an independent implementation; a tampered body, another path, a wrong key and expiry are refused', () => {
    const { signer, jwk } = keyPair('update-one');
    const body = '[{"fw_version":"2.0"}]';
    const headers = signAnswer(signer, contentDigestOf(body), '/firmware/x/hw/1/fw/1.0/dev%201', 'type=all', 1_000_000);
    const answer = { status: 200, body: Buffer.from(body), path: '/firmware/x/hw/1/fw/1.0/dev%201', search: '?type=all', headers };
    expect(verifyAnswer(answer, [jwk], 1_000_000)).toBeNull();
    expect(verifyAnswer({ ...answer, body: Buffer.from('[]') }, [jwk], 1_000_000)).toBe('body does not match Content-Digest');
    expect(verifyAnswer({ ...answer, search: '' }, [jwk], 1_000_000)).toBe('signature does not verify');
    expect(verifyAnswer({ ...answer, status: 203 }, [jwk], 1_000_000)).toBe('signature does not verify');
    expect(verifyAnswer(answer, [{ ...keyPair('update-one').jwk }], 1_000_000)).toBe('signature does not verify');
    expect(verifyAnswer(answer, [jwk], 1_000_300)).toBeNull();
    expect(verifyAnswer(answer, [jwk], 1_000_301)).toBe('expired');
  });
});

describe('AnswerSigner', () => {
  const one = keyPair('update-one');
  const two = keyPair('update-two');
  let current = one.signer;
  const keys = { signer: () => current } as unknown as UpdateSigningKeys;
  const digest = contentDigestOf('[]');

  it('reuses a signature for the same path, query and body within the reuse window, and signs again after it', () => {
    const signer = new AnswerSigner(keys);
    const t0 = 1_700_000_000_000;
    const first = signer.sign(digest, '/p/dev-1', '', t0);
    expect(signer.sign(digest, '/p/dev-1', '', t0 + (SIGNATURE_REUSE_SECONDS - 1) * 1000)).toBe(first);
    expect(signer.sign(digest, '/p/dev-2', '', t0)).not.toBe(first); // per device path
    const otherBody = signer.sign(contentDigestOf('[1]'), '/p/dev-1', '', t0);
    expect(otherBody).not.toBe(first); // per body
    expect(signer.sign(contentDigestOf('[1]'), '/p/dev-1', 'type=all', t0)).not.toBe(otherBody); // per query
    const later = signer.sign(digest, '/p/dev-1', '', t0 + SIGNATURE_REUSE_SECONDS * 1000);
    expect(later).not.toBe(first);
    expect(signer.sign(digest, '/p/dev-1', '', t0 + (SIGNATURE_REUSE_SECONDS + 1) * 1000)).toBe(later);
    expect(signer.keptSignatures.count).toBe(2); // one per path: replaced, not added
  });

  it('signs with the new key at once after a rotation, and stays within its memory budget', () => {
    const signer = new AnswerSigner(keys);
    current = one.signer;
    const t0 = 1_700_000_000_000;
    signer.sign(digest, '/p/dev-1', '', t0);
    current = two.signer;
    expect(signer.sign(digest, '/p/dev-1', '', t0 + 1000).signatureInput).toContain('keyid="update-two"');
    signer.maxBytes = 20_000;
    for (let i = 0; i < 500; i++) signer.sign(digest, `/p/dev-${i}`, '', t0);
    expect(signer.keptSignatures.bytes).toBeLessThanOrEqual(20_000);
    expect(signer.keptSignatures.count).toBeGreaterThan(10);
  });
});
