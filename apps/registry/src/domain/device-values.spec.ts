import { describe, expect, it } from '@jest/globals';
import { ATTRIBUTES_RULE, DEVICE_LIMITS, ErrorCode, HWID_RULE, isHwid, isTagName, KEYS_RULE, ServiceError, TAG_RULE, TAGS_COUNT_RULE } from '@app/contracts';
import { DEVICE_CERTIFICATE, makePublicKeys } from '../../test/factories.js';
import { isPublicKeyText, normalizeAttributes, normalizeHwid, normalizeKeys, normalizeTags, sameJson } from './device-values.js';

function errorOf(fn: () => unknown): ServiceError | undefined {
  try {
    fn();
  } catch (err) {
    if (ServiceError.is(err)) return err;
    throw err;
  }
  return undefined;
}

describe('HW id rule', () => {
  it('accepts 1 to 64 printable ASCII characters 0x21-0x7E, reserved URL characters included, case kept', () => {
    for (const id of ['a', 'A', '~', '!', 'a/b?c#d%e', 'x'.repeat(64), '..', '.', 'import', 'ABC-def_01:02', '"\'<>\\^`{|}']) {
      expect(isHwid(id)).toBe(true);
      expect(normalizeHwid(id)).toBe(id);
    }
    const every = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
    expect(isHwid(every.slice(0, 64))).toBe(true);
    expect(isHwid(every.slice(64))).toBe(true);
  });

  it('refuses empty, longer than 64, spaces, control characters, DEL and non-ASCII with a 400 naming the rule', () => {
    for (const id of ['', 'x'.repeat(65), 'a b', ' a', 'a\t', 'a\n', 'a\u0000', 'a\u007f', 'é', 'a\u00a0', '日本', 5, null, undefined]) {
      expect(isHwid(id)).toBe(false);
      const error = errorOf(() => normalizeHwid(id));
      expect(error).toMatchObject({ code: ErrorCode.BadRequest, reason: 'device_hwid_invalid', message: HWID_RULE });
    }
  });
});

describe('tag rule', () => {
  it('follows ^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$', () => {
    for (const t of ['a', 'Z', '0', 'beta', 'Beta', 'release:2026.11', 'a-b_c.d:e', 'x'.repeat(64)]) expect(isTagName(t)).toBe(true);
    for (const t of ['', '-a', '.a', '_a', ':a', 'a b', 'a/b', 'x'.repeat(65), 'é', 'a,b', 'a+b']) expect(isTagName(t)).toBe(false);
  });

  it('normalizes a tag set: distinct, byte order (upper case before lower case), refusing bad names and too many', () => {
    expect(normalizeTags(['b', 'a', 'B', 'a', '1'])).toEqual(['1', 'B', 'a', 'b']);
    expect(normalizeTags([])).toEqual([]);
    expect(errorOf(() => normalizeTags(['ok', 'not ok']))).toMatchObject({ reason: 'device_tag_invalid', message: `${TAG_RULE} (got "not ok")` });
    expect(errorOf(() => normalizeTags('a'))).toMatchObject({ reason: 'device_tags_not_array', message: 'tags must be an array of tag names' });
    expect(errorOf(() => normalizeTags([1]))?.message).toBe(TAG_RULE);
    const many = Array.from({ length: DEVICE_LIMITS.maxTags + 1 }, (_, i) => `t${i}`);
    expect(errorOf(() => normalizeTags(many))).toMatchObject({ reason: 'device_tags_too_many', message: TAGS_COUNT_RULE });
    expect(normalizeTags([...many.slice(0, DEVICE_LIMITS.maxTags), 't0'])).toHaveLength(DEVICE_LIMITS.maxTags);
  });
});

describe('attributes', () => {
  it('takes a JSON object up to 8 KiB of UTF-8', () => {
    expect(normalizeAttributes({ a: 1, nested: { b: [true, null, 'x'] } })).toEqual({ a: 1, nested: { b: [true, null, 'x'] } });
    const exactly = { k: 'x'.repeat(DEVICE_LIMITS.maxAttributesBytes - '{"k":""}'.length) };
    expect(Buffer.byteLength(JSON.stringify(exactly))).toBe(DEVICE_LIMITS.maxAttributesBytes);
    expect(normalizeAttributes(exactly)).toEqual(exactly);
    expect(errorOf(() => normalizeAttributes({ k: `${exactly.k}x` }))).toMatchObject({ reason: 'device_attributes_invalid', message: ATTRIBUTES_RULE });
    // counted in bytes, not characters
    expect(errorOf(() => normalizeAttributes({ k: 'é'.repeat(DEVICE_LIMITS.maxAttributesBytes / 2) }))?.message).toBe(ATTRIBUTES_RULE);
  });

  it('refuses arrays, null, scalars, and what jsonb cannot store (NUL, unpaired surrogates)', () => {
    for (const value of [[], null, 'x', 1, true]) expect(errorOf(() => normalizeAttributes(value))?.message).toBe(ATTRIBUTES_RULE);
    expect(errorOf(() => normalizeAttributes({ a: 'x\u0000y' }))).toMatchObject({ code: ErrorCode.BadRequest, reason: 'device_attributes_unstorable' });
    expect(errorOf(() => normalizeAttributes({ 'k\u0000': 1 }))?.code).toBe(ErrorCode.BadRequest);
    expect(errorOf(() => normalizeAttributes({ a: ['\ud800'] }))?.code).toBe(ErrorCode.BadRequest);
    expect(normalizeAttributes({ emoji: '😀' })).toEqual({ emoji: '😀' });
  });

  it('compares like jsonb: key order does not matter, array order does', () => {
    expect(sameJson({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBe(true);
    expect(sameJson({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameJson({ a: null }, { a: null })).toBe(true);
    expect(sameJson({}, [])).toBe(false);
  });
});

describe('keys', () => {
  const { pem, jwk, privatePem } = makePublicKeys();

  it('accepts PEM public keys, certificates and public JWK texts, dropping exact duplicates', () => {
    expect(isPublicKeyText(pem)).toBe(true);
    expect(isPublicKeyText(jwk)).toBe(true);
    expect(isPublicKeyText(DEVICE_CERTIFICATE)).toBe(true);
    expect(normalizeKeys([pem, jwk, pem, DEVICE_CERTIFICATE])).toEqual([pem, jwk, DEVICE_CERTIFICATE]);
    expect(normalizeKeys([])).toEqual([]);
  });

  it('refuses private keys, symmetric JWKs, garbage, too many and too long with a 400', () => {
    expect(isPublicKeyText(privatePem)).toBe(false);
    expect(isPublicKeyText(JSON.stringify({ kty: 'oct', k: 'c2VjcmV0' }))).toBe(false);
    const { privateKey } = publicKeysWithPrivateJwk();
    expect(isPublicKeyText(privateKey)).toBe(false);
    expect(isPublicKeyText('ssh-ed25519 AAAA')).toBe(false);
    expect(isPublicKeyText('{not json')).toBe(false);
    expect(errorOf(() => normalizeKeys(['nope']))).toMatchObject({
      reason: 'device_key_not_public',
      message: 'keys[0] is not a public key (PEM or JWK JSON text)',
    });
    expect(errorOf(() => normalizeKeys(Array.from({ length: DEVICE_LIMITS.maxKeys + 1 }, () => pem)))?.message).toBe(KEYS_RULE);
    expect(errorOf(() => normalizeKeys(['x'.repeat(DEVICE_LIMITS.maxKeyChars + 1)]))?.message).toBe(KEYS_RULE);
    expect(errorOf(() => normalizeKeys([1]))?.message).toBe(KEYS_RULE);
    expect(errorOf(() => normalizeKeys('k'))?.message).toBe(KEYS_RULE);
  });
});

function publicKeysWithPrivateJwk(): { privateKey: string } {
  const { jwk } = makePublicKeys();
  return { privateKey: JSON.stringify({ ...JSON.parse(jwk), d: 'AAAA' }) };
}
