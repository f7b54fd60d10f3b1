import { createPublicKey } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { DEVICE_LIMITS, DeviceKeys, isHwid, isTagName, KEYS_RULE, RegistryErrors, ServiceError } from '@app/contracts';
import { contractCheck } from '@app/platform';

/**
 * The values of a device (HW id, tags, attributes, keys), checked when a command is built
 * with the rules of libs/contracts/src/registry (docs/api.md, "Devices"). Each failure is a
 * 400 of RegistryErrors whose message names the rule. The same functions validate import rows,
 * where the message becomes the row's error.
 */

export function normalizeHwid(value: unknown): string {
  if (!isHwid(value)) throw RegistryErrors.device_hwid_invalid();
  return value;
}

export function normalizeTag(value: unknown): string {
  if (!isTagName(value)) throw RegistryErrors.device_tag_invalid({});
  return value;
}

/** Byte order (tags and HW ids are ASCII, so UTF-16 code-unit order is byte order). */
export function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A tag set: valid names, distinct, sorted in byte order, at most DEVICE_LIMITS.maxTags. */
export function normalizeTags(value: unknown): string[] {
  if (!Array.isArray(value)) throw RegistryErrors.device_tags_not_array();
  const tags = tagSetOf(value);
  if (ServiceError.is(tags)) throw tags;
  return tags;
}

/** As normalizeTags for a list of values, answering the refusal instead of throwing (import rows report its message). */
export function tagSetOf(values: readonly unknown[]): string[] | ServiceError {
  for (const tag of values) {
    if (!isTagName(tag)) return RegistryErrors.device_tag_invalid(typeof tag === 'string' ? { got: tag.slice(0, 80) } : {});
  }
  const tags = [...new Set(values as string[])].sort(byteOrder);
  if (tags.length > DEVICE_LIMITS.maxTags) return RegistryErrors.device_tags_too_many();
  return tags;
}

/**
 * Free-form attributes: a JSON object of at most DEVICE_LIMITS.maxAttributesBytes (UTF-8 of its
 * JSON text). Strings (and keys) must be storable as jsonb: no NUL character, no lone surrogate.
 */
export function normalizeAttributes(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw RegistryErrors.device_attributes_invalid();
  const text = JSON.stringify(value);
  if (Buffer.byteLength(text, 'utf8') > DEVICE_LIMITS.maxAttributesBytes) throw RegistryErrors.device_attributes_invalid();
  if (!storableJson(value)) throw RegistryErrors.device_attributes_unstorable();
  return JSON.parse(text) as Record<string, unknown>;
}

const UNSTORABLE = /\u0000|\p{Cs}/u;

function storableJson(value: unknown): boolean {
  if (typeof value === 'string') return !UNSTORABLE.test(value);
  if (Array.isArray(value)) return value.every(storableJson);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).every(([key, item]) => !UNSTORABLE.test(key) && storableJson(item));
  }
  return true;
}

/** DeviceKeys of the contract in two steps, so that the keys are checked in order: the list (its size), then each key (its length). */
const checkKeyList = contractCheck(Type.Array(Type.Unknown(), { maxItems: DeviceKeys.maxItems, 'x-error': KEYS_RULE }));
const checkKeyText = contractCheck(DeviceKeys.items);

/**
 * Device public keys (the contract's DeviceKeys): each a PEM public key or certificate, or the
 * JSON text of a public JWK. Private keys and symmetric keys are refused. Exact duplicates are
 * dropped; the order is kept.
 */
export function normalizeKeys(value: unknown): string[] {
  const keys = checkKeyList(value).map((key, index) => {
    const text = checkKeyText(key);
    if (UNSTORABLE.test(text)) throw RegistryErrors.device_keys_invalid();
    if (!isPublicKeyText(text)) throw RegistryErrors.device_key_not_public({ index });
    return text;
  });
  return [...new Set(keys)];
}

export function isPublicKeyText(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN ')) {
    if (/PRIVATE KEY/.test(trimmed)) return false;
    try {
      return createPublicKey(trimmed).type === 'public';
    } catch {
      return false;
    }
  }
  if (trimmed.startsWith('{')) {
    let jwk: unknown;
    try {
      jwk = JSON.parse(trimmed);
    } catch {
      return false;
    }
    if (!jwk || typeof jwk !== 'object' || Array.isArray(jwk)) return false;
    const fields = jwk as Record<string, unknown>;
    if (typeof fields.kty !== 'string' || 'd' in fields || 'k' in fields) return false;
    try {
      return createPublicKey({ key: fields, format: 'jwk' }).type === 'public';
    } catch {
      return false;
    }
  }
  return false;
}

/** Deep equality of JSON values, ignoring the order of object keys (jsonb semantics). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => sameJson(item, other[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key]));
}

export function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}
