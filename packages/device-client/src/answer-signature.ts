import { createHash, createPublicKey, type JsonWebKey, type KeyObject, verify } from 'node:crypto';
import { DeviceClientError } from './errors.js';
import { type InnerList, isInnerList, type Item, parseDictionary, serializeComponentId, StructuredFieldError } from './structured-fields.js';

/**
 * Verifies an update-check answer: an HTTP Message Signature (RFC 9421) made with one of the
 * service's Ed25519 keys, and the body against its Content-Digest (RFC 9530). The key set is
 * pinned on the device (the service's `/.well-known/jwks.json` at the time the device was
 * built or last trusted), so nothing but the answering host is needed to check an answer.
 */

/** A JSON Web Key Set as `/.well-known/jwks.json` serves it. */
export interface Jwks {
  readonly keys: readonly (JsonWebKey & { kid?: string })[];
}

/** The components a valid answer's signature must cover (docs/device-protocol.md). */
export const REQUIRED_COMPONENTS: readonly string[] = ['"@status"', '"content-digest"', '"@path";req', '"@query";req'];

export interface SignedAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Uint8Array;
  /** The request the answer belongs to: its URL as sent, and its headers. */
  readonly request: { readonly url: string; readonly method?: string; readonly headers?: Headers };
}

export interface VerifyOptions {
  readonly keys: Jwks;
  readonly now?: Date;
  /** Tolerated clock difference between device and service, seconds (default 60). */
  readonly clockSkewSeconds?: number;
}

export interface VerifiedSignature {
  readonly label: string;
  readonly keyid: string;
  readonly created: number;
  readonly expires: number;
}

const refuse = (
  code: 'signature_missing' | 'signature_invalid' | 'signature_expired' | 'signature_key_unknown' | 'signature_coverage' | 'digest_mismatch',
  message: string,
) => new DeviceClientError(code, message);

/** Throws DeviceClientError unless the answer carries a valid signature by a pinned key and its body matches its digest. */
export function verifyAnswer(answer: SignedAnswer, options: VerifyOptions): VerifiedSignature {
  const inputHeader = answer.headers.get('signature-input');
  const signatureHeader = answer.headers.get('signature');
  if (!inputHeader || !signatureHeader) throw refuse('signature_missing', 'the answer has no Signature-Input or Signature header');
  let inputs, signatures;
  try {
    inputs = parseDictionary(inputHeader);
    signatures = parseDictionary(signatureHeader);
  } catch (err) {
    if (err instanceof StructuredFieldError) throw refuse('signature_invalid', `malformed signature header: ${err.message}`);
    throw err;
  }
  let firstRefusal: DeviceClientError | null = null;
  for (const [label, member] of inputs) {
    const signature = signatures.get(label);
    if (!signature || isInnerList(signature.value) || !(signature.value.value instanceof Uint8Array) || !isInnerList(member.value)) continue;
    try {
      const verified = verifyOne(answer, options, label, member.value, member.text, signature.value.value);
      checkDigest(answer);
      return verified;
    } catch (err) {
      if (!(err instanceof DeviceClientError)) throw err;
      firstRefusal ??= err;
    }
  }
  throw firstRefusal ?? refuse('signature_missing', 'no signature label appears in both Signature-Input and Signature');
}

function verifyOne(
  answer: SignedAnswer,
  options: VerifyOptions,
  label: string,
  input: InnerList,
  paramsText: string,
  signature: Uint8Array,
): VerifiedSignature {
  const covered = input.items.map(serializeComponentId);
  const missing = REQUIRED_COMPONENTS.filter((c) => !covered.includes(c));
  if (missing.length > 0) throw refuse('signature_coverage', `signature ${label} does not cover ${missing.join(', ')}`);
  const created = input.params.get('created');
  const expires = input.params.get('expires');
  const keyid = input.params.get('keyid');
  const alg = input.params.get('alg');
  if (typeof created !== 'number' || typeof expires !== 'number' || typeof keyid !== 'string') {
    throw refuse('signature_coverage', `signature ${label} lacks created, expires or keyid`);
  }
  if (alg !== undefined && alg !== 'ed25519') throw refuse('signature_invalid', `signature ${label} uses ${String(alg)}, not ed25519`);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const skew = options.clockSkewSeconds ?? 60;
  if (now + skew < created) throw refuse('signature_expired', `signature ${label} was created in the future (${created})`);
  if (now - skew >= expires) throw refuse('signature_expired', `signature ${label} expired at ${expires}`);
  const key = pinnedKey(options.keys, keyid);
  const base = signatureBase(answer, input.items, paramsText);
  if (!verify(null, Buffer.from(base, 'utf8'), key, signature)) throw refuse('signature_invalid', `signature ${label} does not verify with key ${keyid}`);
  return { label, keyid, created, expires };
}

function pinnedKey(keys: Jwks, keyid: string): KeyObject {
  const jwk = keys.keys.find((k) => k.kid === keyid && k.kty === 'OKP' && k.crv === 'Ed25519');
  if (!jwk) throw refuse('signature_key_unknown', `key ${keyid} is not in the pinned key set`);
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
}

/** The signature base of RFC 9421 §2.5: one line per covered component, then `"@signature-params"`. */
export function signatureBase(answer: SignedAnswer, components: readonly Item[], paramsText: string): string {
  const lines = components.map((c) => `${serializeComponentId(c)}: ${componentValue(answer, c)}`);
  lines.push(`"@signature-params": ${paramsText}`);
  return lines.join('\n');
}

function componentValue(answer: SignedAnswer, component: Item): string {
  const name = component.value as string;
  const fromRequest = component.params.get('req') === true;
  if (component.params.size > (fromRequest ? 1 : 0)) throw refuse('signature_coverage', `component ${name} has parameters this client does not implement`);
  const url = new URL(answer.request.url);
  if (name.startsWith('@')) {
    if (name === '@status' && !fromRequest) return String(answer.status);
    if (!fromRequest) throw refuse('signature_coverage', `component ${name} of the answer is not defined`);
    switch (name) {
      case '@method':
        return (answer.request.method ?? 'GET').toUpperCase();
      case '@path':
        return url.pathname;
      case '@query':
        return url.search === '' ? '?' : url.search;
      case '@authority':
        return url.host.toLowerCase();
      case '@scheme':
        return url.protocol.slice(0, -1);
      case '@target-uri':
        return url.href;
      case '@request-target':
        return url.pathname + url.search;
      default:
        throw refuse('signature_coverage', `derived component ${name} is none this client can check (RFC 9421 section 2.2): the answer is refused`);
    }
  }
  const headers = fromRequest ? answer.request.headers : answer.headers;
  const value = headers?.get(name);
  if (value === null || value === undefined) throw refuse('signature_invalid', `covered header ${name} is absent`);
  return value.trim();
}

const DIGESTS: Readonly<Record<string, string>> = { 'sha-256': 'sha256', 'sha-512': 'sha512' };

/** The body against Content-Digest (RFC 9530): every listed algorithm this client knows must match, and at least one must be known. */
export function checkDigest(answer: Pick<SignedAnswer, 'headers' | 'body'>): void {
  const header = answer.headers.get('content-digest');
  if (!header) throw refuse('digest_mismatch', 'the answer has no Content-Digest');
  let members;
  try {
    members = parseDictionary(header);
  } catch {
    throw refuse('digest_mismatch', 'malformed Content-Digest');
  }
  let checked = 0;
  for (const [algorithm, member] of members) {
    const nodeName = DIGESTS[algorithm];
    if (!nodeName) continue;
    if (isInnerList(member.value) || !(member.value.value instanceof Uint8Array)) throw refuse('digest_mismatch', 'malformed Content-Digest');
    const actual = createHash(nodeName).update(answer.body).digest();
    if (!actual.equals(Buffer.from(member.value.value))) throw refuse('digest_mismatch', `the body does not match its ${algorithm} digest`);
    checked++;
  }
  if (checked === 0) throw refuse('digest_mismatch', 'Content-Digest names no sha-256 or sha-512 digest');
}
