import { createHash, createPublicKey, verify } from 'node:crypto';

/**
 * An independent verifier of signed update-check answers, written from docs/api.md "Signed
 * answers" and RFC 9421/9530 with Node's crypto only (not the service's signing code): tests
 * check the service's headers with it. Answers the reason of a refusal, or null when valid.
 */
export interface SignedAnswer {
  readonly status: number;
  readonly body: Buffer;
  /** The request target as sent: path, and query with its "?" ('' when none). */
  readonly path: string;
  readonly search: string;
  readonly headers: { readonly contentDigest: string | null; readonly signatureInput: string | null; readonly signature: string | null };
}

export interface PublicJwk {
  readonly kid: string;
  readonly kty: string;
  readonly crv: string;
  readonly x: string;
}

export interface ParsedSignatureInput {
  readonly label: string;
  readonly components: string[];
  readonly params: Record<string, string | number>;
  /** The raw value after `label=` (the "@signature-params" line). */
  readonly raw: string;
}

const REQUIRED = ['"@status"', '"content-digest"', '"@path";req', '"@query";req'];

/** Parses `label=("a" "b";req);created=1;keyid="k"` (the structured-field subset the service sends). */
export function parseSignatureInput(header: string): ParsedSignatureInput {
  const match = /^([a-z][a-z0-9_-]*)=\(([^)]*)\)((?:;[a-z]+=(?:"[^"]*"|\d+))*)$/.exec(header);
  if (!match) throw new Error(`unparsable Signature-Input: ${header}`);
  const components = match[2].split(' ').filter(Boolean);
  const params: Record<string, string | number> = {};
  for (const part of match[3].split(';').filter(Boolean)) {
    const eq = part.indexOf('=');
    const value = part.slice(eq + 1);
    params[part.slice(0, eq)] = value.startsWith('"') ? value.slice(1, -1) : Number(value);
  }
  return { label: match[1], components, params, raw: header.slice(match[1].length + 1) };
}

/** `nowSeconds`: the verifier's clock (tests move it to check `expires`). */
export function verifyAnswer(answer: SignedAnswer, keys: readonly PublicJwk[], nowSeconds = Math.floor(Date.now() / 1000)): string | null {
  const { contentDigest, signatureInput, signature } = answer.headers;
  if (!contentDigest || !signatureInput || !signature) return 'headers missing';
  const digest = /^sha-256=:([A-Za-z0-9+/=]+):$/.exec(contentDigest);
  if (!digest) return 'Content-Digest is not sha-256';
  if (createHash('sha256').update(answer.body).digest('base64') !== digest[1]) return 'body does not match Content-Digest';
  const input = parseSignatureInput(signatureInput);
  if (REQUIRED.some((c) => !input.components.includes(c))) return 'a required component is not covered';
  const { created, expires, keyid } = input.params;
  if (typeof created !== 'number' || typeof expires !== 'number' || typeof keyid !== 'string') return 'created, expires or keyid missing';
  if (created > nowSeconds + 60) return 'created in the future';
  if (nowSeconds > expires) return 'expired';
  const jwk = keys.find((k) => k.kid === keyid);
  if (!jwk) return 'unknown keyid';
  const sig = new RegExp(`^${input.label}=:([A-Za-z0-9+/=]+):$`).exec(signature);
  if (!sig) return 'Signature has no value for the label';
  const values: Record<string, string> = {
    '"@status"': String(answer.status),
    '"content-digest"': contentDigest,
    '"@path";req': answer.path,
    '"@query";req': answer.search === '' ? '?' : answer.search,
  };
  const lines = input.components.map((c) => `${c}: ${values[c]}`);
  lines.push(`"@signature-params": ${input.raw}`);
  const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
  return verify(null, Buffer.from(lines.join('\n'), 'utf8'), key, Buffer.from(sig[1], 'base64')) ? null : 'signature does not verify';
}
