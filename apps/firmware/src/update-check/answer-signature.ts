import { createHash, type KeyObject, sign } from 'node:crypto';
import type { AnswerSignature } from '@app/contracts';

/**
 * The RFC 9421 signature of an update-check answer, exactly as docs/api.md "Signed answers"
 * writes it down (devices rebuild the same base): label `fds`, components "@status",
 * "content-digest", "@path";req and "@query";req, parameters created, expires, keyid, alg.
 */
export const SIGNATURE_LABEL = 'fds';
/** `expires` − `created`: longer than the answer's max-age (60 s) plus the reuse below. */
export const SIGNATURE_VALIDITY_SECONDS = 300;
const COVERED = '("@status" "content-digest" "@path";req "@query";req)';

/** RFC 9530 Content-Digest (sha-256) of a body as sent (UTF-8). */
export function contentDigestOf(body: string): string {
  return `sha-256=:${createHash('sha256').update(body, 'utf8').digest('base64')}:`;
}

/** The value of the signature's parameters (`@signature-params`, and Signature-Input after `fds=`). */
export function signatureParams(createdSeconds: number, keyid: string): string {
  return `${COVERED};created=${createdSeconds};expires=${createdSeconds + SIGNATURE_VALIDITY_SECONDS};keyid="${keyid}";alg="ed25519"`;
}

/**
 * The signature base (RFC 9421 §2.5): one line per component, then "@signature-params", joined by
 * "\n". `path` and `query` as the request sent them (query without its "?", '' for none).
 */
export function signatureBase(status: number, contentDigest: string, path: string, query: string, params: string): string {
  return `"@status": ${status}\n"content-digest": ${contentDigest}\n"@path";req: ${path}\n"@query";req: ?${query}\n"@signature-params": ${params}`;
}

/** The three header values of a 200 answer with this digest to this request target. */
export function signAnswer(
  key: { readonly kid: string; readonly key: KeyObject },
  contentDigest: string,
  path: string,
  query: string,
  createdSeconds: number,
): AnswerSignature {
  const params = signatureParams(createdSeconds, key.kid);
  const signature = sign(null, Buffer.from(signatureBase(200, contentDigest, path, query, params), 'utf8'), key.key).toString('base64');
  return { contentDigest, signatureInput: `${SIGNATURE_LABEL}=${params}`, signature: `${SIGNATURE_LABEL}=:${signature}:` };
}
